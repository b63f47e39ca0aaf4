// A routing trace read from its file and checked against the model it is to be replayed on,
// before anything loads: a file that cannot be read, is not a trace, or is for another shape of
// model is bad input (exit 2) naming the file and both shapes.
import { readFileSync } from 'node:fs';
import { UsageError } from '../shared/errors.js';
import type { ModelView } from '../shared/gguf/model-view.js';
import { parseRouteTrace, RouteTraceError, traceShapeMismatch, type RouteShape, type RouteTrace } from '../shared/moe/route-trace.js';

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
export function routeTraceFor(view: ModelView, path: string): RouteTrace {
  const shape = routeShapeOf(view);
  if (!shape) throw new UsageError(`--routing-trace ${path}: routing traces are for mixtures of experts; this model has no experts`);
  const trace = readRouteTrace(path);
  const mismatch = traceShapeMismatch(trace, shape);
  if (mismatch) throw new UsageError(`--routing-trace ${path}: ${mismatch}`);
  return trace;
}
