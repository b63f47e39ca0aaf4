// The built-in demo model: synthesized on first use (real llama architecture and tokenizer,
// random weights) and cached in the user data folder.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { dataRoot } from '../node/paths.js';
import { runCli } from './cli-tools.js';

export const DEMO_MODEL_FILE = 'demo-llama-small-q4_0.gguf';

export function modelsDir(): string {
  return join(dataRoot(), 'models');
}

export function demoModelPath(): string {
  return join(modelsDir(), DEMO_MODEL_FILE);
}

/** The demo model's path, synthesizing it first when it does not exist yet. */
export async function ensureDemoModel(log: (line: string) => void = () => {}): Promise<string> {
  const path = demoModelPath();
  if (existsSync(path)) return path;
  await mkdir(modelsDir(), { recursive: true });
  log(`RAMforge: creating the demo model (first run only): ${path}`);
  // `ramforge synth` writes to a temp file and renames, so an interrupted run leaves nothing half-written.
  await runCli(['synth', '--arch', 'llama', '--preset', 'small', '--type', 'Q4_0', '--seed', '1', '--out', path], { timeoutMs: 15 * 60_000 });
  return path;
}
