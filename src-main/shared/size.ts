// Human sizes for --ram/--vram: 8G 8GiB 8192M 512MiB 1.5G, KB/KiB/MB/MiB/GB/GiB, bare bytes.
// Single letters and *iB are binary (llama.cpp and Ollama users read "8G" as 8 GiB); KB/MB/GB
// with a B are decimal, as the SI prefix says.
const UNITS: Record<string, number> = {
  '': 1,
  B: 1,
  K: 1024,
  KIB: 1024,
  KB: 1000,
  M: 1024 ** 2,
  MIB: 1024 ** 2,
  MB: 1000 ** 2,
  G: 1024 ** 3,
  GIB: 1024 ** 3,
  GB: 1000 ** 3,
  T: 1024 ** 4,
  TIB: 1024 ** 4,
  TB: 1000 ** 4,
};

export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) throw new Error(`'${text}' is not a size (examples: 8G, 8GiB, 8192M, 512MiB, 1.5G)`);
  const unit = (m[2] ?? '').toUpperCase();
  const mult = UNITS[unit];
  if (mult === undefined) throw new Error(`'${text}': unknown unit '${m[2]}' (use K, KiB, KB, M, MiB, MB, G, GiB, GB)`);
  const bytes = Math.round(Number(m[1]) * mult);
  if (!Number.isSafeInteger(bytes)) throw new Error(`'${text}' is too large`);
  return bytes;
}

export function formatBytes(bytes: number | null | undefined, digits = 1): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  const abs = Math.abs(bytes);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  let v = abs;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const s = u === 0 ? String(v) : v.toFixed(digits);
  return `${bytes < 0 ? '-' : ''}${s} ${units[u]}`;
}
