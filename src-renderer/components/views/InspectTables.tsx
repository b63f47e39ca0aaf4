// Tables of the inspection view: quantization summary, layers with bytes, metadata.
import { Fragment, useState } from 'react';
import type { InspectLayer, MetaRow, QuantRow } from '../../lib/inspect-model.js';
import { formatBytes } from '../../lib/format.js';
import { useStore } from '../../store/index.js';
import { Empty } from '../Empty.js';
import { TierTag } from '../TierTag.js';

export function QuantTable({ rows }: { rows: QuantRow[] }) {
  if (!rows.length) return <Empty text="No tensor types listed." />;
  const total = rows.reduce((s, r) => s + r.bytes, 0) || 1;
  return (
    <table className="t">
      <thead>
        <tr>
          <th>type</th>
          <th className="num">tensors</th>
          <th className="num">bytes</th>
          <th>share</th>
        </tr>
      </thead>
      <tbody>
        {[...rows].sort((a, b) => b.bytes - a.bytes).map((r) => (
          <tr key={r.type}>
            <td className="mono">{r.type}</td>
            <td className="num">{r.count}</td>
            <td className="num">{formatBytes(r.bytes)}</td>
            <td className="bar-cell">
              <div className="bar" style={{ width: `${(r.bytes / total) * 100}%` }} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function LayersTable({ layers }: { layers: InspectLayer[] }) {
  const planLayers = useStore((s) => s.plan?.layers);
  const [open, setOpen] = useState<number | null>(null);
  if (!layers.length) return <Empty text="No repeating layers found." />;
  const max = Math.max(1, ...layers.map((l) => l.bytes));
  return (
    <div className="scroll tall">
      <table className="t" data-testid="model-layers">
        <thead>
          <tr>
            <th>layer</th>
            <th className="num">tensors</th>
            <th className="num">bytes</th>
            <th>tier (plan)</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {layers.map((l) => (
            <Fragment key={l.index}>
              <tr data-testid="layer-row" data-layer={l.index} onClick={() => setOpen(open === l.index ? null : l.index)}>
                <td className="mono">blk.{l.index}</td>
                <td className="num">{l.tensors.length || '—'}</td>
                <td className="num">{formatBytes(l.bytes)}</td>
                <td>{planLayers ? <TierTag tier={planLayers.find((p) => p.index === l.index)?.tier ?? null} /> : <span className="faint">—</span>}</td>
                <td className="bar-cell">
                  <div className="bar" style={{ width: `${(l.bytes / max) * 100}%` }} />
                </td>
              </tr>
              {open === l.index &&
                l.tensors.map((t) => (
                  <tr key={t.name} className="dim">
                    <td className="mono">  {t.name}</td>
                    <td className="mono">{t.type}</td>
                    <td className="num">{formatBytes(t.bytes)}</td>
                    <td className="mono" colSpan={2}>
                      [{t.dims.join(' × ')}]
                    </td>
                  </tr>
                ))}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function MetadataTable({ rows }: { rows: MetaRow[] }) {
  if (!rows.length) return <Empty text="No metadata." />;
  return (
    <div className="scroll">
      <table className="t">
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <td className="mono">{r.key}</td>
              <td className="mono dim">{r.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
