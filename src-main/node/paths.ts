// Where RAMforge keeps things outside the repo: the llama.cpp source and build cache (keyed by
// the pinned tag), the demo model, and user data. RAMFORGE_CACHE / RAMFORGE_DATA override.
import { homedir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function cacheRoot(): string {
  return process.env.RAMFORGE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ramforge');
}

export function dataRoot(): string {
  return process.env.RAMFORGE_DATA || join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'ramforge');
}

/** The repository / package root (the folder holding package.json). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const pj = join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        if (JSON.parse(readFileSync(pj, 'utf8')).name === 'ramforge') return dir;
      } catch {
        /* keep looking */
      }
    }
    dir = resolve(dir, '..');
  }
  throw new Error('cannot find the ramforge package root');
}

export function llamaTag(): string {
  const pj = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  return pj.llamaCpp.tag as string;
}

/** The pinned llama.cpp source tree (fetched by scripts/llama-cpp.mjs). */
export function llamaSourceDir(): string {
  return join(cacheRoot(), 'llama.cpp', llamaTag(), 'src');
}

export function vocabDir(): string {
  return join(llamaSourceDir(), 'models');
}
