// Per decoded token: which layers were read from storage and how long decode waited on each, the
// waits on RPC nodes beside them, the slowest token marked — so a slow token can be pointed at.
import { useMemo } from 'react';
import type { ResidencySample } from '../../../src-main/shared/residency-types.js';
import { slowestToken, tokenReads } from '../../../src-main/shared/residency/token-reads.js';
import { formatBytes } from '../../lib/format.js';
import { Empty } from '../Empty.js';

/** Most recent tokens shown; the slowest is kept in view wherever it is. */
const SHOWN = 24;

export function TokenReads({ samples, readsObserved }: { samples: ResidencySample[]; readsObserved: boolean }) {
  const entries = useMemo(() => tokenReads(samples), [samples]);
  const slow = useMemo(() => slowestToken(entries), [entries]);
  if (entries.length === 0) return <Empty text="No decoded tokens yet." />;
  const shown = entries.slice(-SHOWN);
  if (slow && !shown.includes(slow)) shown.unshift(slow);
  return (
    <div className="scroll">
      <table className="t" data-testid="token-reads" data-entries={String(entries.length)} data-slowest={slow ? String(slow.toToken) : ''}>
        <thead>
          <tr>
            <th>token</th>
            <th className="num">ms / token</th>
            <th className="num">read</th>
            <th className="num">waited</th>
            <th>layers read (waited)</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((e) => {
            const n = e.toToken - e.fromToken;
            const label = n === 1 ? `${e.toToken}` : `${e.fromToken + 1}–${e.toToken}`;
            const layers = e.layers.map((l) => `L${l.layer}${l.readBytes > 0 ? ` ${formatBytes(l.readBytes)}` : ''}${l.waitMs > 0 ? ` (waited ${l.waitMs.toFixed(1)} ms)` : ''}`);
            if (e.expertReadBytes > 0) layers.unshift(`experts ${formatBytes(e.expertReadBytes)}`);
            const nodes = e.nodes.filter((x) => x.waitMs > 0).map((x) => `${x.endpoint} (${x.waitMs.toFixed(1)} ms)`);
            return (
              <tr key={`${e.fromToken}-${e.toToken}`} data-testid="token-reads-row" data-slowest={String(e === slow)} className={e === slow ? 'warn' : undefined}>
                <td>
                  {label}
                  {e.fromToken === 0 ? ' (with the prompt)' : ''}
                  {e === slow ? ' · slowest' : ''}
                </td>
                <td className="num">{(e.ms / n).toFixed(1)}</td>
                <td className="num">{readsObserved ? formatBytes(e.readBytes) : '—'}</td>
                <td className="num">{e.waitMs.toFixed(1)} ms</td>
                <td className="dim">{[...layers, ...nodes].join(' · ') || (readsObserved ? 'nothing read from storage' : 'reads not observed (no stream schedule)')}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
