// The frame every recharts chart sits in: the empty state, saying why, when there is nothing
// to draw; else a box of the chart's height that the chart fills.
import type { ReactElement } from 'react';
import { ResponsiveContainer } from 'recharts';
import { Empty } from '../Empty.js';

interface Props {
  /** Why there is nothing to draw, or null to draw the chart. */
  empty: string | null;
  short?: boolean;
  children: ReactElement;
}

export function ChartBox({ empty, short = false, children }: Props) {
  if (empty !== null) return <Empty text={empty} />;
  return (
    <div className={short ? 'chart short' : 'chart'}>
      <ResponsiveContainer width="100%" height="100%">
        {children}
      </ResponsiveContainer>
    </div>
  );
}
