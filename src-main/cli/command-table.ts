// Every `ramforge` command, loaded lazily: main.ts dispatches through this table, and the docs'
// tests parse the commands in README.md and docs/ with the same specs the CLI runs.
import type { CommandSpec } from './args.js';

export type Loader = () => Promise<{ command: CommandSpec }>;

// Lazy so that `ramforge inspect` never pays for loading the worker or server code.
export const COMMANDS: Record<string, { summary: string; load: Loader }> = {
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
