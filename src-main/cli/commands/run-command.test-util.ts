// Test helpers for command modules: run a command's run() with parsed argv, capturing stdout.
import { vi } from 'vitest';
import { open, writeFile } from 'node:fs/promises';
import { parseArgs, type CommandSpec } from '../args.js';
import { buildGguf, tensorBytes } from '../../shared/gguf/build-gguf.test-util.js';
import { tinySpec, type TinyOptions } from '../../shared/gguf/tiny-models.test-util.js';

export async function runCommand(cmd: CommandSpec, argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  try {
    const code = await cmd.run(parseArgs(argv, cmd));
    return { code, stdout };
  } finally {
    spy.mockRestore();
  }
}

/** Writes a model whose payload is a hole (sparse file): real sizes, no disk use. */
export async function writeSparseModel(path: string, o: TinyOptions): Promise<{ fileBytes: number; tensorBytes: number }> {
  const spec = tinySpec(o);
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  let sum = 0;
  for (const t of spec.tensors ?? []) {
    end = Math.ceil(end / 32) * 32 + tensorBytes(t);
    sum += tensorBytes(t);
  }
  await writeFile(path, bytes);
  const fh = await open(path, 'r+');
  await fh.truncate(offsets.dataOffset + end);
  await fh.close();
  return { fileBytes: offsets.dataOffset + end, tensorBytes: sum };
}
