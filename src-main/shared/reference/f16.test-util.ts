// Rounding to IEEE binary16 and back, to mimic llama.cpp's F16 KV cache, and F16 decoding for
// F16 weights. Independent of the generator's converter on purpose.
export function roundToF16(v: number): number {
  if (!Number.isFinite(v) || v === 0) return v;
  const a = Math.abs(v);
  if (a >= 65520) return v > 0 ? Infinity : -Infinity;
  // Spacing of representable values: 2^(e-10) for normal numbers, 2^-24 below 2^-14.
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  e = Math.max(e, -14);
  const ulp = 2 ** (e - 10);
  const q = a / ulp;
  let r = Math.round(q);
  if (Math.abs(q - Math.trunc(q) - 0.5) < 1e-12) r = Math.trunc(q) % 2 === 0 ? Math.trunc(q) : Math.trunc(q) + 1; // ties to even
  return Math.sign(v) * r * ulp;
}

export function decodeF16(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
