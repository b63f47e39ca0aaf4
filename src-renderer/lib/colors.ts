// Palette shared by canvas/SVG charts (CSS variables cannot reach a canvas).
import type { ResidencyEventKind, Tier } from '../../src-main/shared/residency-types.js';
import type { HeldTier } from '../../src-main/shared/residency/residency-model.js';

export const TIER_COLOR: Record<Tier, string> = { vram: '#a371f7', remote: '#39c5cf', pinned: '#3fb950', streamed: '#d29922' };
export const TIER_LABEL: Record<Tier, string> = { vram: 'VRAM', remote: 'other machines', pinned: 'pinned RAM', streamed: 'streamed' };
// Where a copy of a weight is: the residency view's tiers (the locked copy keeps the pinned colour).
export const HELD_COLOR: Record<HeldTier, string> = { vram: '#a371f7', remote: '#39c5cf', locked: '#3fb950', experts: '#f778ba', mapped: '#58a6ff' };
export const HELD_LABEL: Record<HeldTier, string> = { vram: 'VRAM', remote: 'RPC nodes', locked: 'locked RAM', experts: 'expert slots', mapped: 'mapped pages' };

/** A tier's colour over the background by the share of the row held (a row half held is drawn half bright). */
export function heldRgb(tier: HeldTier | null, fraction: number): [number, number, number] {
  if (tier === null || !Number.isFinite(fraction)) return UNKNOWN_RGB;
  const hex = HELD_COLOR[tier];
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  // Never below a fifth: a row with any copy still shows its tier.
  const f = 0.2 + 0.8 * Math.min(1, Math.max(0, fraction));
  return [0, 1, 2].map((k) => Math.round(UNKNOWN_RGB[k]! + (c[k]! - UNKNOWN_RGB[k]!) * f)) as [number, number, number];
}

export const EVENT_COLOR: Record<ResidencyEventKind, string> = {
  prefetch: '#58a6ff',
  drop: '#f85149',
  late: '#d29922',
  stall: '#ff7b72',
  release: '#8b949e',
};
export const UNKNOWN_CELL = '#1b1f27';

// Dark → bright ramp (navy, teal, green, yellow) for resident fractions.
const STOPS: [number, number, number][] = [
  [22, 27, 45],
  [18, 84, 120],
  [30, 150, 130],
  [110, 200, 90],
  [240, 225, 80],
];

export const UNKNOWN_RGB: [number, number, number] = [27, 31, 39];

/** RGB of a resident fraction 0..1 (clamped); NaN → the "unknown" colour. */
export function rampRgb(f: number): [number, number, number] {
  if (!Number.isFinite(f)) return UNKNOWN_RGB;
  const x = Math.min(1, Math.max(0, f)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const t = x - i;
  const a = STOPS[i]!;
  const b = STOPS[i + 1]!;
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * t)) as [number, number, number];
}

export function rampColor(f: number): string {
  if (!Number.isFinite(f)) return UNKNOWN_CELL;
  const [r, g, b] = rampRgb(f);
  return `rgb(${r},${g},${b})`;
}
