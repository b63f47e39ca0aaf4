// Pure: from the tensors llama.cpp loaded (name, bytes, host address) and the file mappings they
// live in, build the inventory the residency engine works with: each weight's layer, file
// range, address range, page range and backing, plus the page-aligned ranges that belong to
// one layer alone (a page shared with another layer or a persistent tensor is never dropped).

export interface LoadedTensor {
  name: string;
  type: string;
  bytes: number;
  addr: number;
  host: boolean;
  buffer: string | null;
}

export interface FileMapping {
  /** Index into the model's file list. */
  file: number;
  start: number;
  end: number;
  /** File offset mapped at `start`. */
  offset: number;
}

export type Backing = 'file-mapped' | 'anonymous' | 'device';

export interface InventoryTensor {
  name: string;
  type: string;
  bytes: number;
  /** Layer index, or -1 for persistent tensors (embeddings, output head, final norm). */
  layer: number;
  backing: Backing;
  addr: number;
  file: number | null;
  fileOffset: number | null;
  firstPage: number;
  lastPage: number;
  /** Pages this tensor shares with a tensor of another layer (or a persistent one). */
  sharedPages: number;
  /** ggml's buffer name (Vulkan0, RPC0[host:port], CPU…): which device holds a device-backed tensor. */
  buffer: string | null;
}

export interface LayerRanges {
  index: number;
  bytes: number;
  fileBackedBytes: number;
  /** [addr, len, file, fileOffset] page-aligned, exclusive to this layer. */
  ranges: [number, number, number, number][];
}

export interface Inventory {
  pageSize: number;
  tensors: InventoryTensor[];
  layers: LayerRanges[];
  /** Pages owned by persistent tensors alone (index -1): observed, never released. */
  persistent: LayerRanges;
  /** The persistent tensors by kind (token embeddings, output head, output norm, other), each with its own exclusive pages. */
  outside: OutsideRows[];
  persistentBytes: number;
  anonymousBytes: number;
  fileMappedBytes: number;
}

export interface OutsideRows extends Omit<LayerRanges, 'index'> {
  key: OutsideKey;
  tensors: string[];
}

export type OutsideKey = 'token_embd' | 'output' | 'output_norm' | 'other';
const OUTSIDE_KEYS: readonly OutsideKey[] = ['token_embd', 'output', 'output_norm', 'other'];

/** Which row of its own a tensor outside the layers belongs to. */
export function outsideKeyOf(name: string): OutsideKey {
  const stem = name.slice(0, name.indexOf('.') < 0 ? name.length : name.indexOf('.'));
  return stem === 'token_embd' || stem === 'output' || stem === 'output_norm' ? stem : 'other';
}

export function layerOf(name: string): number {
  const m = /^blk\.(\d+)\./.exec(name);
  return m ? Number(m[1]) : -1;
}

export function buildInventory(tensors: LoadedTensor[], mappings: FileMapping[], nLayers: number, pageSize: number): Inventory {
  const page = (a: number) => Math.floor(a / pageSize);
  const inv: InventoryTensor[] = tensors.map((t) => {
    const m = t.host ? mappings.find((mm) => t.addr >= mm.start && t.addr + t.bytes <= mm.end) : undefined;
    // ggml's CPU repack buffers are not "host" buffers, yet they are in RAM: anonymous.
    const inRam = t.host || (t.buffer ?? '').toUpperCase().startsWith('CPU');
    const backing: Backing = !inRam ? 'device' : m ? 'file-mapped' : 'anonymous';
    return {
      name: t.name,
      type: t.type,
      bytes: t.bytes,
      layer: layerOf(t.name),
      backing,
      addr: t.addr,
      file: m ? m.file : null,
      fileOffset: m ? t.addr - m.start + m.offset : null,
      firstPage: page(t.addr),
      lastPage: page(t.addr + Math.max(t.bytes, 1) - 1),
      sharedPages: 0,
      buffer: t.buffer,
    };
  });

  // Owner of every page touched by a file-mapped tensor: a layer index, or -2 when shared.
  const owner = new Map<number, number>();
  for (const t of inv) {
    if (t.backing !== 'file-mapped') continue;
    for (let p = t.firstPage; p <= t.lastPage; p++) {
      const o = owner.get(p);
      owner.set(p, o === undefined || o === t.layer ? t.layer : -2);
    }
  }
  for (const t of inv) {
    if (t.backing !== 'file-mapped') continue;
    let shared = 0;
    for (const p of [t.firstPage, t.lastPage]) if (owner.get(p) === -2) shared++;
    t.sharedPages = t.firstPage === t.lastPage ? Math.min(shared, 1) : shared;
  }

  const rangesOf = (i: number, only: (t: InventoryTensor) => boolean = () => true): LayerRanges => {
    const mine = inv.filter((t) => t.layer === i && only(t)).sort((a, b) => a.addr - b.addr);
    const ranges: [number, number, number, number][] = [];
    for (const t of mine) {
      if (t.backing !== 'file-mapped' || t.file === null || t.fileOffset === null) continue;
      let first = t.firstPage;
      let last = t.lastPage;
      while (first <= last && owner.get(first) !== i) first++;
      while (last >= first && owner.get(last) !== i) last--;
      if (first > last) continue;
      const addr = first * pageSize;
      const len = (last - first + 1) * pageSize;
      const fileOffset = t.fileOffset - (t.addr - addr);
      const prev = ranges[ranges.length - 1];
      // Merge with the previous range when contiguous in memory and in the same file.
      if (prev && prev[0] + prev[1] >= addr && prev[2] === t.file) {
        const end = Math.max(prev[0] + prev[1], addr + len);
        prev[1] = end - prev[0];
      } else {
        ranges.push([addr, len, t.file, fileOffset]);
      }
    }
    return {
      index: i,
      bytes: mine.reduce((s, t) => s + t.bytes, 0),
      fileBackedBytes: mine.filter((t) => t.backing === 'file-mapped').reduce((s, t) => s + t.bytes, 0),
      ranges,
    };
  };
  const layers = Array.from({ length: nLayers }, (_, i) => rangesOf(i));
  // A page two persistent kinds share belongs to layer -1 in both, so both rows count it (a page at most at each end).
  const outside = OUTSIDE_KEYS.map((key) => {
    const { index: _index, ...r } = rangesOf(-1, (t) => outsideKeyOf(t.name) === key);
    return { key, tensors: inv.filter((t) => t.layer < 0 && outsideKeyOf(t.name) === key).map((t) => t.name), ...r };
  }).filter((r) => r.tensors.length > 0);
  return {
    pageSize,
    tensors: inv,
    layers,
    persistent: rangesOf(-1),
    outside,
    persistentBytes: inv.filter((t) => t.layer < 0).reduce((s, t) => s + t.bytes, 0),
    anonymousBytes: inv.filter((t) => t.backing === 'anonymous').reduce((s, t) => s + t.bytes, 0),
    fileMappedBytes: inv.filter((t) => t.backing === 'file-mapped').reduce((s, t) => s + t.bytes, 0),
  };
}

/** Parse /proc/self/maps lines for the mappings of the given files. */
export function parseMaps(text: string, files: string[]): FileMapping[] {
  const out: FileMapping[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+)\s+\S+\s+([0-9a-f]+)\s+\S+\s+\d+\s+(.*)$/.exec(line);
    if (!m) continue;
    const path = (m[4] ?? '').trim();
    const idx = files.indexOf(path);
    if (idx < 0) continue;
    out.push({ file: idx, start: parseInt(m[1] as string, 16), end: parseInt(m[2] as string, 16), offset: parseInt(m[3] as string, 16) });
  }
  return out;
}
