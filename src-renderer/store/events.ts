// Host events → store actions. One subscription for the whole app.
import type { ApiEvent } from '../../src-main/shared/api.js';
import type { PassCount } from '../lib/speculative-model.js';
import type { Store } from './types.js';

/**
 * `tokens`: how many token events a (coalesced) token event stands for; `passes`: the
 * speculative verify passes they began (a single event's own `pass` when not given).
 */
export function handleEvent(s: Store, e: ApiEvent, tokens = 1, passes?: PassCount[]): void {
  switch (e.type) {
    case 'state': {
      s.setEngine(e.state);
      const st = s.streaming;
      if (st && (e.state.status === 'crashed' || e.state.status === 'idle')) {
        s.onGenerationError(st.requestId, e.state.message ?? `the worker stopped (${e.state.status})`);
      }
      break;
    }
    case 'load-progress':
      s.setLoadFraction(e.fraction);
      break;
    case 'token': {
      s.onToken(e.requestId, e.token);
      s.onSpecTokens(e.requestId, tokens, passes ?? (e.token.pass ? [e.token.pass] : []));
      const run = s.compareRun;
      if (run && e.requestId.startsWith(`${run.requestId}:`)) for (let i = 0; i < tokens; i++) s.countCompareToken(e.requestId.slice(run.requestId.length + 1));
      break;
    }
    case 'generation-done':
      s.onGenerationDone(e.requestId, e.result);
      s.onSpecDone(e.requestId, e.result);
      if (e.result.routing) s.setRouting(e.result.routing);
      void s.fetchLastReport();
      break;
    case 'generation-error':
      s.onGenerationError(e.requestId, e.message);
      break;
    case 'sample':
      s.pushSample(e.sample);
      break;
    case 'models-changed':
      s.scheduleDiscovery();
      break;
    case 'pull-progress':
      s.onPullProgress(e);
      break;
    case 'cgroup-sample':
      s.pushCgroupTick({ tMs: e.tMs, usageBytes: e.usageBytes, limitBytes: e.limitBytes });
      break;
    case 'server-stats':
      s.onServerStats(e.stats);
      break;
  }
}
