// A routing trace read from its file and checked against the model it is to be replayed on,
// before anything loads: a file that cannot be read, is not a trace, or is for another shape of
// model is bad input (exit 2) naming the file and both shapes. The CLI names its flags, the app
// (through `ramforge prepare-load`) its settings; the rest of each message is the same.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { traceRouting, type TraceRouting } from '../shared/moe/trace-routing.js';
import { UsageError } from '../shared/errors.js';
import type { ModelView } from '../shared/gguf/model-view.js';
import { parseRouteTrace, RouteTraceError, traceShapeMismatch, type RouteShape, type RouteTrace } from '../shared/moe/route-trace.js';
import type { RunSettings } from '../shared/settings/run-settings.js';

/** What a message calls the trace replayed and the file the routing is written to. */
export interface RoutingNames {
  trace: string;
  out: string;
}

export const ROUTING_FLAGS: RoutingNames = { trace: '--routing-trace', out: '--routing-trace-out' };

/** The model's routing shape (MoE layers, experts, experts per token), or null for a dense model. */
export function routeShapeOf(view: ModelView): RouteShape | null {
  const moe = view.moe;
  if (!moe || moe.layers.length === 0 || moe.expertUsedCount === null) return null;
  return { layers: moe.layers.length, experts: moe.expertCount, used: moe.expertUsedCount };
}

export function readRouteTrace(path: string, flag = '--routing-trace'): RouteTrace {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag} ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return parseRouteTrace(text);
  } catch (e) {
    if (e instanceof RouteTraceError) throw new UsageError(`${flag} ${path}: ${e.message}`);
    throw e;
  }
}

/** The trace, read and checked against the model; a dense model has no routing to replay. */
export function routeTraceFor(view: ModelView, path: string, what = ROUTING_FLAGS.trace): RouteTrace {
  const shape = routeShapeOf(view);
  if (!shape) throw new UsageError(`${what} ${path}: routing traces are for mixtures of experts; this model has no experts`);
  const trace = readRouteTrace(path, what);
  const mismatch = traceShapeMismatch(trace, shape);
  if (mismatch) throw new UsageError(`${what} ${path}: ${mismatch}`);
  return trace;
}

/**
 * A trace to replay fits the model; routing to write needs a mixture of experts and a folder to
 * write in. Returns the trace as the plan replays it (null: none given).
 */
export function checkRoutingSettings(view: ModelView, s: Pick<RunSettings, 'routingTrace' | 'routingTraceOut'>, names: RoutingNames = ROUTING_FLAGS): TraceRouting | null {
  const trace = s.routingTrace !== null ? traceRouting(basename(s.routingTrace), routeTraceFor(view, s.routingTrace, names.trace)) : null;
  const out = s.routingTraceOut;
  if (out === null) return trace;
  if (!routeShapeOf(view)) throw new UsageError(`${names.out} ${out}: routing traces are for mixtures of experts; this model has no experts`);
  if (!existsSync(dirname(out))) throw new UsageError(`${names.out} ${out}: the folder ${dirname(out)} does not exist`);
  return trace;
}
