// Files a command writes after a run that may take hours (reports, token dumps): a path that
// cannot be written is refused before the run (exit 2); a write that still fails afterwards (a
// full disk) is reported with what was kept, and never takes the other outputs with it.
import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../shared/errors.js';
import { writeJsonAtomic } from '../node/atomic-write.js';

/** The folder `mkdir -p` would start from for `path`'s parent must be a writable folder. */
export async function checkOutputPath(flag: string, path: string): Promise<void> {
  const target = await stat(path).catch(() => null);
  if (target?.isDirectory()) throw new UsageError(`--${flag} ${path}: is a folder, not a file`);
  let dir = dirname(resolve(path));
  for (;;) {
    const st = await stat(dir).catch((e: NodeJS.ErrnoException) => e);
    if (!(st instanceof Error)) {
      if (!st.isDirectory()) throw new UsageError(`--${flag} ${path}: ${dir} is not a folder`);
      break;
    }
    if (st.code === 'ENOTDIR') throw new UsageError(`--${flag} ${path}: a part of ${dir} is a file, not a folder`);
    if (st.code !== 'ENOENT' || dirname(dir) === dir) throw new UsageError(`--${flag} ${path}: ${st.message}`);
    dir = dirname(dir);
  }
  await access(dir, constants.W_OK).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`--${flag} ${path}: cannot write in ${dir} (${e.code ?? e.message})`);
  });
}

/** Writes each output atomically; returns one line per output that could not be written. */
export async function writeOutputs(outputs: { flag: string; path: string; value: () => unknown }[]): Promise<string[]> {
  const failed: string[] = [];
  for (const o of outputs) {
    try {
      await writeJsonAtomic(o.path, o.value());
    } catch (e) {
      failed.push(`--${o.flag} ${o.path} was not written (${(e as Error).message}); nothing partial is left there`);
    }
  }
  return failed;
}
