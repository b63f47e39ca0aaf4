// The name a loaded model is served under, and which names in a request mean it. Pure.
import type { ServedModel } from './backend.js';

/** The file name without its folder and `.gguf`: what llama-server and LM Studio list for a file. */
export function modelIdOf(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.gguf$/i, '') || base;
}

export function namesModel(requested: string, m: ServedModel): boolean {
  return requested === m.id || m.aliases.includes(requested);
}

/** Whether a request's name means the model file at `path` (its id, file name or path; Ollama's `:latest` as well). */
export function namesFile(requested: string, path: string): boolean {
  const bare = requested.endsWith(':latest') ? requested.slice(0, -':latest'.length) : requested;
  const file = path.split(/[\\/]/).pop() ?? path;
  return [requested, bare].some((n) => n === path || n === file || n === modelIdOf(path));
}
