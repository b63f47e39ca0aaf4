import type { Tier } from '../../src-main/shared/residency-types.js';
import { TIER_LABEL } from '../lib/colors.js';

export function TierTag({ tier }: { tier: Tier | null }) {
  return <span className={`tier ${tier ?? 'unknown'}`}>{tier ? TIER_LABEL[tier] : 'unknown'}</span>;
}

export function TierLegend({ totals }: { totals?: Partial<Record<Tier, string>> }) {
  return (
    <div className="legend">
      {(['vram', 'pinned', 'streamed'] as const).map((t) => (
        <span key={t}>
          <span className={`sw ${t}`} />
          {TIER_LABEL[t]}
          {totals?.[t] ? ` · ${totals[t]}` : ''}
        </span>
      ))}
    </div>
  );
}
