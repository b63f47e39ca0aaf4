// The one layer that reads and writes cgroup control files, for v1 and v2 alike. Reads are
// synchronous: control files are tiny, in-memory, and the sampler reads a handful of them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class ControlFileError extends Error {
  constructor(
    readonly file: string,
    readonly errno: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ControlFileError';
  }
}

function errnoOf(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
}

/** Contents of dir/name, or null when the file does not exist (older kernel, other version). */
export function readControl(dir: string, name: string): string | null {
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch (e) {
    const code = errnoOf(e);
    if (code === 'ENOENT' || code === 'ENODEV') return null;
    throw new ControlFileError(join(dir, name), code, (e as Error).message);
  }
}

/** Parse dir/name with `parse`, or null when the file is absent. */
export function readParsed<T>(dir: string, name: string, parse: (text: string, file: string) => T): T | null {
  const text = readControl(dir, name);
  return text === null ? null : parse(text, name);
}

/** Write one value (the kernel takes one write per open). Throws ControlFileError. */
export function writeControl(dir: string, name: string, value: string): void {
  try {
    writeFileSync(join(dir, name), value);
  } catch (e) {
    throw new ControlFileError(join(dir, name), errnoOf(e), `cannot write '${value}': ${(e as Error).message}`);
  }
}

/** Whether dir/name exists (for write-only files such as cgroup.kill). */
export function hasControl(dir: string, name: string): boolean {
  return existsSync(join(dir, name));
}
