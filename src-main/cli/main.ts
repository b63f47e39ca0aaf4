// `ramforge` entry point: dispatches to one command module per subcommand.
import { formatHelp, parseArgs, wantsHelp } from './args.js';
import { ExitError, EXIT } from '../shared/errors.js';
import { VERSION_LINE } from '../shared/version.js';
import { COMMANDS } from './command-table.js';

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
