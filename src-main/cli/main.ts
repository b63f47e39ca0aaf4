// `ramforge` entry point: dispatches to one command module per subcommand.
import { formatHelp, parseArgs, wantsHelp, type CommandSpec } from './args.js';
import { ExitError, EXIT } from '../shared/errors.js';
import { VERSION_LINE } from '../shared/version.js';

type Loader = () => Promise<{ command: CommandSpec }>;

// Lazy so that `ramforge inspect` never pays for loading the worker or server code.
const COMMANDS: Record<string, { summary: string; load: Loader }> = {
  run: { summary: 'generate text from a GGUF model', load: () => import('./commands/run.js') },
  synth: { summary: 'write a synthetic GGUF model (real architecture and tokenizer, random weights)', load: () => import('./commands/synth.js') },
  inspect: { summary: 'show what a GGUF file holds, without loading it', load: () => import('./commands/inspect.js') },
  plan: { summary: 'plan where every layer lives under a RAM (and VRAM) budget', load: () => import('./commands/plan.js') },
  devices: { summary: 'list the GPUs a run can offload to, with their memory', load: () => import('./commands/devices.js') },
  'prepare-load': { summary: 'the load the app makes from run settings (shape, plan, load parameters) as JSON', load: () => import('./commands/prepare-load.js') },
  models: { summary: 'list the GGUF models already on this machine (Ollama, LM Studio, Hugging Face, llama.cpp) and whether each fits', load: () => import('./commands/models.js') },
  pull: { summary: 'download a GGUF model (resumable, verified) after showing whether it fits', load: () => import('./commands/pull.js') },
  support: { summary: 'list architectures and tensor types, and the evidence behind each', load: () => import('./commands/support.js') },
  bench: { summary: 'compare residency policies side by side under one cap', load: () => import('./commands/bench.js') },
  'bench-serve': { summary: 'concurrent requests decoded together under a cap: aggregate tok/s per client count', load: () => import('./commands/bench-serve.js') },
  sweep: { summary: 'bench at a series of caps: a table, the numbers and a plot', load: () => import('./commands/sweep.js') },
  'sweep-caps': { summary: 'random cases under enforced caps: each completes, or is refused naming a cap that runs', load: () => import('./commands/sweep-caps.js') },
  'bench-binding': { summary: "compare our decode speed with llama.cpp's own llama-bench", load: () => import('./commands/bench-binding.js') },
  'rpc-server': { summary: "lend this machine's RAM to other machines' --rpc (llama.cpp's RPC server, optionally capped)", load: () => import('./commands/rpc-server.js') },
  serve: { summary: 'serve the app UI in a browser on 127.0.0.1 (browser mode)', load: () => import('./commands/serve.js') },
};

function globalHelp(): string {
  const rows = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(15)}${c.summary}`);
  return [
    'Usage: ramforge <command> [args] [flags]',
    '',
    'Run GGUF language models larger than your RAM.',
    '',
    'Commands:',
    ...rows,
    '',
    'Global flags:',
    '  -h, --help     show help (also: ramforge <command> --help)',
    '  -v, --version  print the RAMforge version and the pinned llama.cpp tag',
    '',
    'Exit codes: 0 ok, 1 runtime failure, 2 bad usage or input, 124 enforced timeout, 137 killed by the memory cap.',
    '',
  ].join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic && COMMANDS[topic]) {
      process.stdout.write(formatHelp((await COMMANDS[topic].load()).command));
      return EXIT.ok;
    }
    process.stdout.write(globalHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '-v' || name === '--version' || name === 'version') {
    process.stdout.write(VERSION_LINE + '\n');
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`ramforge: unknown command '${name}' (see 'ramforge --help')\n`);
    return EXIT.usage;
  }
  const { command } = await entry.load();
  if (wantsHelp(rest)) {
    process.stdout.write(formatHelp(command));
    return EXIT.ok;
  }
  try {
    const args = parseArgs(rest, command);
    return await command.run(args);
  } catch (e) {
    if (e instanceof ExitError) {
      process.stderr.write(`ramforge ${name}: ${e.message}\n`);
      return e.exitCode;
    }
    const err = e as Error;
    process.stderr.write(`ramforge ${name}: ${err?.message ?? String(e)}\n`);
    if (process.env.RAMFORGE_DEBUG) process.stderr.write(`${err?.stack ?? ''}\n`);
    return EXIT.failure;
  }
}

// `ramforge inspect big.gguf | head` closes the pipe early; that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`ramforge: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = EXIT.failure;
  },
);
