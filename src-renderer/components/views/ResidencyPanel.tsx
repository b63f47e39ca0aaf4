// Where the model is: the residency model's rows over time, the layer table and the per-token
// reads when the worker or the report has the rows; a report from an older worker keeps the
// mapping's resident pages per layer.
import type { DashboardData } from '../../lib/dashboard-model.js';
import { ResidencyHeatmap } from '../charts/ResidencyHeatmap.js';
import { ResidencyTable } from '../charts/ResidencyTable.js';
import { TierHeatmap } from '../charts/TierHeatmap.js';
import { TokenReads } from '../charts/TokenReads.js';

export function ResidencyPanel({ data }: { data: DashboardData }) {
  const specs = data.residencyRows;
  if (!specs) {
    return (
      <div className="panel">
        <h4>
          Residency per layer over time<span className="spacer" />
          <span className="faint">{data.layers.length} layers · the mapping’s resident pages</span>
        </h4>
        <ResidencyHeatmap layers={data.layers} samples={data.samples} />
      </div>
    );
  }
  const nLayers = specs.filter((s) => s.layer !== null).length;
  return (
    <>
      <div className="panel">
        <h4>
          Where the model is, over time<span className="spacer" />
          <span className="faint">
            {nLayers} layers + {specs.length - nLayers} rows outside them
          </span>
        </h4>
        <TierHeatmap specs={specs} samples={data.samples} readsObserved={data.readsObserved} />
      </div>
      <div className="panel">
        <h4>Every copy, by tier (latest sample)</h4>
        <ResidencyTable specs={specs} samples={data.samples} readsObserved={data.readsObserved} />
      </div>
      <div className="panel">
        <h4>Per token: layers read from storage, and the waits</h4>
        <TokenReads samples={data.samples} readsObserved={data.readsObserved} />
      </div>
    </>
  );
}
