// Human rendering of `ramforge inspect`: identity, shape, quantization, layers, persistent
// tensors, metadata (long arrays and strings summarised; --json has them complete).
import { formatBytes } from '../size.js';
import type { GgufShard, ModelView, ViewTensor } from './model-view.js';
import { valueSummary, valueTypeName } from './json-value.js';
import { isArray } from './metadata.js';

export function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} K`;
  return String(n);
}

function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => indent + r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ').trimEnd());
}

const short = (t: ViewTensor): string => t.name.replace(/^blk\.\d+\./, '').replace(/\.weight$/, '');

export function formatInspect(shards: readonly GgufShard[], view: ModelView): string {
  const first = shards[0] as GgufShard;
  const out: string[] = [];
  const v = view;
  const dash = (x: number | null | string): string => (x === null ? '—' : String(x));
  out.push(`${v.name ?? '(no name)'}  (${v.architecture ?? 'no architecture'})${v.vocabOnly ? '  [vocab only: no tensors]' : ''}`);
  const shape = [
    `${dash(v.blockCount)} layers`,
    `embd ${dash(v.embeddingLength)}`,
    `ff ${dash(v.feedForwardLength)}`,
    `heads ${dash(v.headCount)} (kv ${dash(v.headCountKv)})`,
    `head_dim ${dash(v.headDim)}`,
  ].join(' · ');
  const tmpl = first.header.kvByKey.get('tokenizer.chat_template')?.value;
  out.push(
    ...table([
      ['file', shards.length === 1 ? first.path : `${shards.length} shards (split set)`],
      ['file bytes', `${formatBytes(v.fileBytes)} (${v.fileBytes} B), GGUF v${first.header.version}, alignment ${first.header.alignment}`],
      ['parameters', `${formatCount(v.parameterCount)} (${v.parameterCount})`],
      ['tensor bytes', `${formatBytes(v.tensorBytes)} (${v.tensorBytes} B) in ${v.tensors.length} tensors`],
      ['context length', dash(v.contextLength)],
      ['shape', shape],
      ['tokenizer', `${v.tokenizerModel ?? '—'}, vocab ${dash(v.vocabSize)}`],
      ['chat template', v.hasChatTemplate ? `yes${typeof tmpl === 'string' ? ` (${tmpl.length} chars)` : ''}` : 'no'],
    ]),
  );
  if (shards.length > 1) {
    out.push('', 'Shards');
    out.push(...table(shards.map((s, i) => [`${i + 1}`, s.path, formatBytes(s.header.fileSize), `${s.header.tensors.length} tensors`])));
  }
  if (v.quantization.length) {
    out.push('', 'Quantization');
    out.push(...table([['type', 'tensors', 'bytes', 'share'], ...v.quantization.map((q) => [q.type, String(q.tensors), formatBytes(q.bytes), `${((100 * q.bytes) / Math.max(1, v.tensorBytes)).toFixed(1)} %`])]));
  }
  if (v.moe) {
    const m = v.moe;
    const n = m.layers.length;
    const used = m.expertUsedCount;
    out.push('', 'Mixture of experts');
    out.push(
      ...table([
        ['experts per layer', `${m.expertCount} in ${n} of ${v.layers.length} layers${m.expertFeedForwardLength !== null ? `, each ${m.expertFeedForwardLength} wide` : ''}`],
        ['used per token', used === null ? '— (no expert_used_count)' : `${used} per layer`],
        ['shared experts', m.expertSharedCount > 0 ? `${m.expertSharedCount} per layer (${formatBytes(m.sharedExpertBytes)} in all, run by every token)` : 'none'],
        ['bytes per expert', `${formatBytes(m.bytesPerExpert)} (${m.bytesPerExpert} B: its slices of the layer's expert tensors)`],
        ['expert tensors', `${formatBytes(m.expertBytes)} (${((100 * m.expertBytes) / Math.max(1, v.tensorBytes)).toFixed(1)} % of the weights)`],
        ['dense part', `${formatBytes(m.denseBytes)} (attention, norms, routers, shared experts, embeddings, output head)`],
        ['active per token', m.activeBytesPerToken === null ? '—' : `${formatBytes(m.activeBytesPerToken)} (dense part read per token + ${used} × ${n} routed experts)`],
        ...(m.routerSkew !== null ? [['router skew', `${m.routerSkew} (a synthetic model's routing)`]] : []),
      ]),
    );
  }
  if (v.layers.length) {
    out.push('', `Layers (${v.layers.length})`);
    let prevSig = '';
    let prevIndex = -1;
    out.push(
      ...table(
        v.layers.map((l) => {
          const sig = l.tensors.map((t) => `${short(t)} ${t.typeName}`).join(', ');
          const desc = sig === prevSig ? `same tensors as blk.${prevIndex}` : sig;
          if (sig !== prevSig) {
            prevSig = sig;
            prevIndex = l.index;
          }
          return [`blk.${l.index}`, `${l.tensors.length} tensors`, formatBytes(l.bytes), desc];
        }),
      ),
    );
  }
  if (v.persistent.tensors.length) {
    out.push('', `Persistent tensors (${v.persistent.tensors.length}, ${formatBytes(v.persistent.bytes)})`);
    out.push(...table(v.persistent.tensors.map((t) => [t.name, t.typeName, `[${t.dims.join(', ')}]`, formatBytes(t.nbytes)])));
  }
  out.push('', `Metadata (${first.header.kv.length} keys${shards.length > 1 ? ', from shard 1' : ''})`);
  out.push(
    ...table(
      first.header.kv.map((e) => [e.key, isArray(e.value) ? `${valueTypeName(e.value.elementType)}[${e.value.items.length}]` : valueTypeName(e.type), valueSummary(e.value, e.type)]),
    ),
  );
  return out.join('\n') + '\n';
}
