// Pure: turns the plan's streamed tensors and the loaded inventory into what the native stream
// schedule executes — units (runs of streamed tensors adjacent in the file, each read into one
// slot of the window), the ranges to lock (every page of every other weight), and the ranges
// read only a row at a time (token_embd beside a separate output head).
import type { Inventory, InventoryTensor } from './inventory.js';

/** [address, length, fileIndex, fileOffset], page aligned. */
export type PageRange = [number, number, number, number];

export interface StreamUnit {
  layer: number;
  file: number;
  /** Adjacent in the file; read together into one slot of the window. */
  tensors: { name: string; offset: number; bytes: number }[];
  bytes: number;
}

export interface StreamLayout {
  units: StreamUnit[];
  /** Pages of every weight that is not streamed: locked for the run. */
  pinned: PageRange[];
  /** Pages read a row at a time (token_embd beside a separate output head). */
  random: PageRange[];
  /** Tensor bytes in units (what streams per pass). */
  streamedBytes: number;
  pinnedBytes: number;
  /** The tensors whose pages `pinned` locks (what the residency view counts as locked). */
  lockedTensors: string[];
}

/**
 * @param streamed names of the streamed tensors (the plan's choice)
 * @param unitBytes runs of adjacent streamed tensors of one layer merge while they stay this small
 * @param rowsOnly tensors read a row at a time (not resident, not streamed)
 * @param apart tensors served elsewhere (a mixture's expert cache): neither locked nor streamed
 */
export function buildStreamLayout(inv: Inventory, streamed: readonly string[], unitBytes: number, rowsOnly: readonly string[], apart: readonly string[] = []): StreamLayout {
  const ps = inv.pageSize;
  const want = new Set(streamed);
  const rows = new Set(rowsOnly);
  const elsewhere = new Set(apart);
  const mapped = inv.tensors.filter((t) => t.backing === 'file-mapped' && t.file !== null && t.fileOffset !== null && !elsewhere.has(t.name)).sort((a, b) => a.addr - b.addr);
  const range = (t: InventoryTensor, first: number, last: number): PageRange => {
    const addr = first * ps;
    return [addr, (last - first + 1) * ps, t.file as number, (t.fileOffset as number) - (t.addr - addr)];
  };

  // Runs of streamed tensors, adjacent in the file and in one layer, up to unitBytes each.
  const units: StreamUnit[] = [];
  let prev: InventoryTensor | null = null;
  for (const t of mapped) {
    if (!want.has(t.name)) {
      prev = t;
      continue;
    }
    const unit = units[units.length - 1];
    const entry = { name: t.name, offset: t.fileOffset as number, bytes: t.bytes };
    if (unit && prev && want.has(prev.name) && prev.layer === t.layer && prev.file === t.file && unit.bytes + t.bytes <= unitBytes) {
      unit.tensors.push(entry);
      unit.bytes += t.bytes;
    } else {
      units.push({ layer: t.layer, file: t.file as number, tensors: [entry], bytes: t.bytes });
    }
    prev = t;
  }

  // Everything else that is a weight is locked, except rows-only tensors' own pages.
  const intervals: { first: number; last: number; t: InventoryTensor }[] = [];
  const random: PageRange[] = [];
  for (const t of mapped) {
    if (want.has(t.name)) continue;
    if (rows.has(t.name)) {
      const first = t.firstPage + (t.sharedPages > 0 && isShared(mapped, t, t.firstPage) ? 1 : 0);
      const last = t.lastPage - (t.sharedPages > 0 && t.lastPage !== t.firstPage && isShared(mapped, t, t.lastPage) ? 1 : 0);
      if (last >= first) random.push(range(t, first, last));
      continue;
    }
    intervals.push({ first: t.firstPage, last: t.lastPage, t });
  }
  const lockedTensors = intervals.map((iv) => iv.t.name);
  const pinned: PageRange[] = [];
  let cur: { first: number; last: number; t: InventoryTensor } | null = null;
  for (const iv of intervals) {
    if (cur && iv.first <= cur.last + 1 && iv.t.file === cur.t.file) cur.last = Math.max(cur.last, iv.last);
    else {
      if (cur) pinned.push(range(cur.t, cur.first, cur.last));
      cur = { ...iv };
    }
  }
  if (cur) pinned.push(range(cur.t, cur.first, cur.last));
  return {
    units,
    pinned,
    random,
    streamedBytes: units.reduce((s, u) => s + u.bytes, 0),
    pinnedBytes: pinned.reduce((s, r) => s + r[1], 0),
    lockedTensors,
  };
}

function isShared(sorted: InventoryTensor[], t: InventoryTensor, page: number): boolean {
  return sorted.some((o) => o !== t && o.firstPage <= page && o.lastPage >= page);
}
