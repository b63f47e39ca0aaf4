// The dashboard's RPC nodes: per node, the bytes each decoded token sent to it and got back and
// the time it waited on it (the kernel's TCP counters and the waits timed at the scheduler's
// splits), with what the plan placed there.
import type { NetworkView } from '../lib/network-model.js';
import { formatBytes, formatBytesPerTok } from '../lib/format.js';
import type { RemotePlan } from '../../src-main/shared/plan/place-remote.js';

const ms = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`);

export function NetworkPanel({ view, plan }: { view: NetworkView; plan: RemotePlan | null }) {
  return (
    <div className="panel" data-testid="network-panel">
      <h4>
        Other machines (RPC)<span className="spacer" />
        <span className="faint">
          {formatBytesPerTok(view.bytesPerToken)} · {ms(view.waitMsPerToken)} waited per token
        </span>
      </h4>
      <table className="table">
        <thead>
          <tr>
            <th>node</th>
            <th>holds</th>
            <th>sent / token</th>
            <th>received / token</th>
            <th>waited / token</th>
            <th>sent in all</th>
          </tr>
        </thead>
        <tbody>
          {view.nodes.map((n) => {
            const p = plan?.nodes.find((x) => x.endpoint === n.endpoint);
            const holds = p && p.layers.length > 0 ? `layers ${p.layers[0]}–${p.layers[p.layers.length - 1]}${p.headBytes > 0 ? ' + head' : ''}` : '—';
            return (
              <tr key={n.endpoint} data-testid="network-node" data-endpoint={n.endpoint} data-sent-per-token={n.sentPerToken ?? ''} data-wait-ms-per-token={n.waitMsPerToken ?? ''}>
                <td>{n.endpoint}</td>
                <td>{holds}</td>
                <td>{formatBytesPerTok(n.sentPerToken)}</td>
                <td>{formatBytesPerTok(n.receivedPerToken)}</td>
                <td>{ms(n.waitMsPerToken)}</td>
                <td>{formatBytes(n.sent)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
