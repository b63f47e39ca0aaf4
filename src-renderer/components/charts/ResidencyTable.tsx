// The layer table: every row of the residency model at the run's latest sample, each copy by tier,
// and what decode read of it from storage per token — the figures the report's layers keep.
import { useMemo } from 'react';
import type { ResidencySample } from '../../../src-main/shared/residency-types.js';
import { HELD_TIERS, residencyRows, type ResidencyRowSpec } from '../../../src-main/shared/residency/residency-model.js';
import { HELD_COLOR, HELD_LABEL } from '../../lib/colors.js';
import { formatBytes } from '../../lib/format.js';

interface Props {
  specs: ResidencyRowSpec[];
  samples: ResidencySample[];
  readsObserved: boolean;
}

export function ResidencyTable({ specs, samples, readsObserved }: Props) {
  const rows = useMemo(() => residencyRows(specs, samples, readsObserved), [specs, samples, readsObserved]);
  return (
    <div className="scroll">
      <table className="t" data-testid="residency-table">
        <thead>
          <tr>
            <th>row</th>
            <th>tier</th>
            <th className="num">bytes</th>
            {HELD_TIERS.map((t) => (
              <th key={t} className="num">
                <span className="sw-inline" style={{ background: HELD_COLOR[t] }} /> {HELD_LABEL[t]}
              </th>
            ))}
            <th className="num">read / token</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.key}
              data-testid="residency-row"
              data-key={r.key}
              data-held={JSON.stringify(r.held)}
              data-read={r.readBytesPerToken === null ? '' : String(r.readBytesPerToken)}
            >
              <td>{r.name}</td>
              <td>{r.tier ?? '—'}</td>
              <td className="num">{formatBytes(r.bytes)}</td>
              {HELD_TIERS.map((t) => (
                <td key={t} className="num">
                  {r.held[t] === null ? '—' : r.held[t] === 0 ? '' : formatBytes(r.held[t])}
                </td>
              ))}
              <td className="num">{r.readBytesPerToken === null ? '—' : formatBytes(r.readBytesPerToken)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
