// The I/O edge of the GGUF reader: opens a file, a split set or a directory holding one model,
// and reads ONLY the header region with bounded reads (a prefix that grows on demand, capped).
// All parsing and checking is in src-main/shared/gguf/ (pure).
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseGgufHeader, GgufError, GgufNeedMoreBytes, type GgufHeader, type ParseOptions } from '../shared/gguf/reader.js';
import { buildModelView, checkModelView, type GgufShard, type ModelView } from '../shared/gguf/model-view.js';
import { parseSplitName, splitFileName, validateSplitSet } from '../shared/gguf/split.js';

export const FIRST_READ_BYTES = 1024 * 1024;
/** The largest header region we will read (a header bigger than this is refused). */
export const MAX_HEADER_BYTES = 512 * 1024 * 1024;

export interface OpenedModel {
  /** The path the user gave. */
  readonly input: string;
  readonly shards: GgufShard[];
  readonly view: ModelView;
  /** Bytes actually read from disk to parse all headers. */
  readonly bytesRead: number;
}

export interface ReadHeaderResult {
  readonly header: GgufHeader;
  readonly bytesRead: number;
}

/** Reads and parses one file's header with bounded reads. Throws GgufError (with the file name). */
export async function readGgufHeaderFile(path: string, opts: ParseOptions & { maxHeaderBytes?: number } = {}): Promise<ReadHeaderResult> {
  const cap = opts.maxHeaderBytes ?? MAX_HEADER_BYTES;
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    let len = Math.min(size, FIRST_READ_BYTES, cap);
    let buf = Buffer.alloc(len);
    let have = await readFully(fh, buf, 0, len);
    for (;;) {
      try {
        const header = parseGgufHeader(buf.subarray(0, have), size, opts);
        return { header, bytesRead: have };
      } catch (e) {
        if (!(e instanceof GgufNeedMoreBytes)) throw e instanceof GgufError ? e.withFile(path) : e;
        if (e.needed > cap) {
          throw new GgufError('HEADER_TOO_LARGE', `header region needs more than ${cap} bytes; refusing to read it`, have, path);
        }
        len = Math.min(size, cap, Math.max(e.needed, have * 4));
        const next = Buffer.alloc(len);
        buf.copy(next, 0, 0, have);
        have += await readFully(fh, next, have, len - have);
        buf = next;
        if (have < e.needed) throw new GgufError('TRUNCATED', 'file shrank while being read', have, path);
      }
    }
  } finally {
    await fh.close();
  }
}

async function readFully(fh: Awaited<ReturnType<typeof open>>, buf: Buffer, at: number, n: number): Promise<number> {
  let done = 0;
  while (done < n) {
    const { bytesRead } = await fh.read(buf, at + done, n - done, at + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/**
 * Resolves MODEL (a .gguf file, any shard of a split set, or a directory holding exactly one
 * model) to its files in order. Throws GgufError NO_MODEL / AMBIGUOUS_DIRECTORY / SPLIT.
 */
export async function resolveModelFiles(input: string): Promise<string[]> {
  let st;
  try {
    st = await stat(input);
  } catch {
    throw new GgufError('NO_MODEL', `no such file or directory: ${input}`, null);
  }
  if (st.isDirectory()) {
    const entries = (await readdir(input, { withFileTypes: true })).filter((d) => d.isFile() && d.name.toLowerCase().endsWith('.gguf')).map((d) => d.name).sort();
    const groups = new Map<string, string[]>();
    for (const name of entries) {
      const s = parseSplitName(name);
      const key = s ? `${s.prefix} (split set of ${s.count})` : name;
      groups.set(key, [...(groups.get(key) ?? []), name]);
    }
    if (groups.size === 0) throw new GgufError('NO_MODEL', `directory ${input} holds no .gguf file`, null);
    if (groups.size > 1) {
      const names = [...groups.keys()];
      throw new GgufError('AMBIGUOUS_DIRECTORY', `directory ${input} holds ${names.length} different models (${names.join(', ')}); name the file to use`, null);
    }
    const only = [...groups.values()][0] as string[];
    return splitSetPaths(join(input, only[0] as string));
  }
  if (!st.isFile()) throw new GgufError('NO_MODEL', `${input} is not a file`, null);
  return splitSetPaths(input);
}

async function splitSetPaths(file: string): Promise<string[]> {
  const s = parseSplitName(basename(file));
  if (!s) return [file];
  const dir = dirname(file);
  const paths: string[] = [];
  for (let i = 1; i <= s.count; i++) {
    const p = join(dir, splitFileName(s.prefix, i, s.count));
    try {
      if (!(await stat(p)).isFile()) throw new Error('not a file');
    } catch {
      throw new GgufError('SPLIT', `split set ${s.prefix}: shard ${i} of ${s.count} is missing (${p})`, null);
    }
    paths.push(p);
  }
  return paths;
}

/** Opens MODEL: resolves its files, parses every header, validates the split set and the model. */
export async function openGgufModel(input: string, opts: ParseOptions = {}): Promise<OpenedModel> {
  const files = await resolveModelFiles(input);
  const shards: GgufShard[] = [];
  let bytesRead = 0;
  for (const path of files) {
    const r = await readGgufHeaderFile(path, opts);
    shards.push({ path, header: r.header });
    bytesRead += r.bytesRead;
  }
  return assembleModel(input, shards, bytesRead);
}

/** Parsed shards (local files or remote URLs, in split order) checked as one model and viewed. */
export function assembleModel(input: string, shards: GgufShard[], bytesRead: number): OpenedModel {
  validateSplitSet(shards);
  const first = shards[0] as GgufShard;
  try {
    const view = buildModelView(shards);
    checkModelView(view, first.header);
    return { input, shards, view, bytesRead };
  } catch (e) {
    throw e instanceof GgufError ? e.withFile(first.path) : e;
  }
}
