// The one atomic writer: a temp file with an unpredictable name, created exclusively (never
// through an existing file or symlink), written, fsynced, renamed over the target, and the
// folder fsynced. A crash or a full disk leaves the old file or the new one, never half of one,
// and no temp file behind.
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';

/** The temp file's name: hidden, the writer's pid (so a start can tell a dead writer's leftovers), random. */
const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** The writer's pid when `name` is one of this writer's temp files (left behind only by a crash), else null. */
export function atomicTempWriter(name: string): number | null {
  const m = TEMP_NAME.exec(name);
  return m ? Number(m[2]) : null;
}

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  // The rename is durable only once the folder's entry is.
  const d = await open(dir, 'r').catch(() => null);
  if (d) await d.sync().catch(() => undefined).finally(() => d.close());
}

export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}
