// Pure: a cap sweep (one side-by-side bench per cap) as a Markdown table and an SVG plot of
// decode tok/s and bytes read per token against the cap, one line per policy.
import { formatBytes } from '../size.js';

export interface SweepCell {
  policy: string;
  status: string;
  decodeTokS: number | null;
  readPerToken: number | null;
  floorPerToken: number | null;
  limitHitsDecode: number | null;
  identicalTokens: boolean | null;
}

export interface SweepPoint {
  capBytes: number;
  /** The cap as a share of the model file. */
  fraction: number;
  cells: SweepCell[];
}

const pct = (f: number) => `${Math.round(f * 100)} %`;
const n2 = (v: number | null) => (v === null ? '—' : v.toFixed(2));
/** tok/s, or why there is none (oom, cannot-run below the model's minimum working set). */
const tokS = (c: SweepCell | undefined) => (c && c.status !== 'ok' && c.decodeTokS === null ? c.status : n2(c?.decodeTokS ?? null));

/**
 * The floor of the last policy's run (the schedule under test): each run's floor counts the
 * non-weight memory that run charged, and a schedule that holds room for the whole context's
 * KV cache from the start charges more than a run whose cache fills page by page.
 */
const floorOf = (pt: SweepPoint, policy: string | undefined): number | null => pt.cells.find((c) => c.policy === policy)?.floorPerToken ?? null;

/** One row per cap: each policy's tok/s and read/token, the ratio of the last policy to the first, its read over its floor. */
export function sweepMarkdown(points: readonly SweepPoint[]): string {
  const policies = points[0]?.cells.map((c) => c.policy) ?? [];
  const last = policies[policies.length - 1];
  const first = policies[0];
  const head = ['cap', '% of file', ...policies.map((p) => `${p} tok/s`), ...(policies.length > 1 ? [`${last}/${first}`] : []), ...policies.map((p) => `${p} read/token`), `${last} floor/token`, `${last} read/floor`, ...policies.map((p) => `${p} limit hits (decode)`), 'same tokens'];
  const rows = points.map((pt) => {
    const by = new Map(pt.cells.map((c) => [c.policy, c]));
    const a = by.get(first ?? '')?.decodeTokS ?? null;
    const b = by.get(last ?? '')?.decodeTokS ?? null;
    const floor = floorOf(pt, last);
    const read = by.get(last ?? '')?.readPerToken ?? null;
    return [
      formatBytes(pt.capBytes),
      pct(pt.fraction),
      ...policies.map((p) => tokS(by.get(p))),
      ...(policies.length > 1 ? [a !== null && b !== null && a > 0 ? `${(b / a).toFixed(2)}×` : '—'] : []),
      ...policies.map((p) => {
        const v = by.get(p)?.readPerToken ?? null;
        return v === null ? '—' : formatBytes(v);
      }),
      floor === null ? '—' : formatBytes(floor),
      floor !== null && floor > 0 && read !== null ? `${(read / floor).toFixed(2)}×` : '—',
      ...policies.map((p) => String(by.get(p)?.limitHitsDecode ?? '—')),
      pt.cells.every((c) => c.identicalTokens === null) ? '—' : pt.cells.every((c) => c.identicalTokens !== false) ? 'yes' : 'NO',
    ];
  });
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n') + '\n';
}

const COLORS = ['#d9534f', '#2b7bb9', '#5cb85c', '#f0ad4e', '#8e6cc1', '#777777'];

interface Series {
  name: string;
  color: string;
  points: [number, number][];
}

function panel(title: string, unit: string, series: Series[], x0: number, y0: number, w: number, h: number, xs: number[]): string {
  const all = series.flatMap((s) => s.points.map((p) => p[1]));
  const ymax = Math.max(1e-9, ...all) * 1.1;
  const xmin = Math.min(...xs);
  const xmax = Math.max(...xs);
  const px = (x: number) => x0 + ((x - xmin) / Math.max(1e-9, xmax - xmin)) * w;
  const py = (y: number) => y0 + h - (y / ymax) * h;
  const out: string[] = [];
  out.push(`<text x="${x0}" y="${y0 - 12}" font-size="14" font-weight="bold">${title}</text>`);
  out.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    const y = py(v);
    out.push(`<line x1="${x0}" x2="${x0 + w}" y1="${y}" y2="${y}" stroke="#eee"/>`);
    out.push(`<text x="${x0 - 6}" y="${y + 4}" font-size="11" text-anchor="end">${unit === 'bytes' ? formatBytes(v) : v.toFixed(1)}</text>`);
  }
  for (const x of xs) out.push(`<text x="${px(x)}" y="${y0 + h + 16}" font-size="11" text-anchor="middle">${pct(x)}</text>`);
  out.push(`<text x="${x0 + w / 2}" y="${y0 + h + 34}" font-size="12" text-anchor="middle">cap, % of the model file</text>`);
  series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.name.startsWith('floor') ? ' stroke-dasharray="5,4"' : ''}/>`);
    for (const p of s.points) out.push(`<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="3" fill="${s.color}"/>`);
    out.push(`<text x="${x0 + w - 4}" y="${y0 + 16 + 15 * i}" font-size="12" text-anchor="end" fill="${s.color}">${s.name}</text>`);
  });
  return out.join('\n');
}

export function sweepSvg(points: readonly SweepPoint[], title: string): string {
  const policies = points[0]?.cells.map((c) => c.policy) ?? [];
  const xs = points.map((p) => p.fraction);
  const series = (pick: (c: SweepCell) => number | null): Series[] =>
    policies.map((name, i) => ({
      name,
      color: COLORS[i % COLORS.length] as string,
      points: points.flatMap((pt) => {
        const c = pt.cells.find((x) => x.policy === name);
        const v = c ? pick(c) : null;
        return v === null ? [] : [[pt.fraction, v] as [number, number]];
      }),
    }));
  const last = policies[policies.length - 1];
  const floor: Series = {
    name: `floor (${last}'s memory)`,
    color: '#444444',
    points: points.flatMap((pt) => {
      const v = floorOf(pt, last);
      return v === null ? [] : [[pt.fraction, v] as [number, number]];
    }),
  };
  const W = 980;
  const H = 420;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="22" font-size="15" text-anchor="middle">${title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>`,
    panel('decode tok/s', 'tok/s', series((c) => c.decodeTokS), 80, 70, 360, 270, xs),
    panel('bytes read per token', 'bytes', [...series((c) => c.readPerToken), floor], 580, 70, 360, 270, xs),
    '</svg>',
  ].join('\n');
}
