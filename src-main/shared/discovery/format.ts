// Human rendering of `ramforge models`: one section per source with its folder, one line per
// model (name, architecture, parameters, quantization, size, and the verdict, the label of a
// file that is not a chat model, or why it could not be read), then the folders not found.
import { formatBytes } from '../size.js';
import { DISCOVERY_SOURCES, SOURCE_LABELS, type DiscoveredModel, type DiscoveryReport } from './types.js';

export function formatParams(n: number | null): string {
  if (n === null || n <= 0) return '—';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  return `${(n / 1e3).toFixed(1)}K`;
}

function status(m: DiscoveredModel): string {
  if (m.kind === 'unreadable') return `UNREADABLE: ${m.reason ?? ''}`;
  if (!m.chat) return `[${m.kind}] ${m.reason ?? ''}`;
  if (m.planError) return `no plan: ${m.planError}`;
  const p = m.plan;
  if (!p) return '';
  if (p.verdict === 'fits') return 'FITS';
  if (p.verdict === 'cannot-run') return `CANNOT-RUN (smallest cap ${formatBytes(p.minimumRamBytes)})`;
  const tok = p.predictedDecodeTokS === null ? '' : `, ≈ ${p.predictedDecodeTokS.toFixed(1)} tok/s`;
  return `OUT-OF-CORE (${formatBytes(p.bytesReadPerToken)}/token read${tok})`;
}

export function formatModels(r: DiscoveryReport): string {
  const out: string[] = [];
  if (r.budget) out.push(`Budget: RAM ${formatBytes(r.budget.ramBytes)} (${r.budget.ramSource}) · disk bandwidth: ${r.budget.diskBandwidthSource}`, '');
  const nameW = Math.min(48, Math.max(10, ...r.models.map((m) => m.name.length)));
  for (const source of DISCOVERY_SOURCES) {
    const models = r.models.filter((m) => m.source === source);
    const roots = r.roots.filter((x) => x.source === source && x.present);
    if (models.length === 0 && roots.length === 0) continue;
    out.push(`${SOURCE_LABELS[source]} — ${roots.map((x) => x.path).join(', ')}`);
    if (models.length === 0) out.push('  (no GGUF models)');
    for (const m of models) {
      const cols = [
        `  ${m.name.length > nameW ? m.name.slice(0, nameW - 1) + '…' : m.name.padEnd(nameW)}`,
        (m.architecture ?? '—').padEnd(10),
        formatParams(m.parameterCount).padStart(7),
        (m.quantization ?? '—').padEnd(6),
        formatBytes(m.fileBytes).padStart(10),
        status(m),
      ];
      out.push(cols.join('  ').trimEnd());
    }
    out.push('');
  }
  const absent = r.roots.filter((x) => !x.present);
  if (absent.length) out.push(`Not found: ${absent.map((x) => `${SOURCE_LABELS[x.source]} (${x.path})`).join(', ')}`);
  const chat = r.models.filter((m) => m.chat).length;
  const bad = r.models.filter((m) => m.kind === 'unreadable').length;
  out.push(`${chat} chat model${chat === 1 ? '' : 's'}, ${r.models.length - chat - bad} other GGUF file${r.models.length - chat - bad === 1 ? '' : 's'}, ${bad} unreadable`);
  return out.join('\n') + '\n';
}
