import type { Tier } from '../../src-main/shared/residency-types.js';
import { TIER_LABEL } from '../lib/colors.js';

export function TierTag({ tier }: { tier: Tier | null }) {
  return <span className={`tier ${tier ?? 'unknown'}`}>{tier ? TIER_LABEL[tier] : 'unknown'}</span>;
}

/** The tiers' swatches; other machines only where a layer is there (`--rpc`). */
export function TierLegend({ totals, remote = false }: { totals?: Partial<Record<Tier, string>>; remote?: boolean }) {
  const tiers: Tier[] = remote ? ['vram', 'remote', 'pinned', 'streamed'] : ['vram', 'pinned', 'streamed'];
  return (
    <div className="legend">
      {tiers.map((t) => (
        <span key={t}>
          <span className={`sw ${t}`} />
          {TIER_LABEL[t]}
          {totals?.[t] ? ` · ${totals[t]}` : ''}
        </span>
      ))}
    </div>
  );
}
