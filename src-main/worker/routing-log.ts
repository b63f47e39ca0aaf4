// The routing of a mixture of experts inside the worker: the native tap's options (the MoE
// layers, a trace to replay), what it recorded taken after each generation, written to the
// trace file the user asked for, and summed against Belady's optimum for the expert cache's size.
import { appendFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { NativeContextOptions, NativeModel, NativeRouting } from '../native/addon.js';
import { isExpertTensor } from '../shared/residency/expert-budget.js';
import { traceShapeMismatch, type RouteTrace } from '../shared/moe/route-trace.js';
import { readRouteTrace } from '../node/route-trace-file.js';
import { UsageError } from '../shared/errors.js';
import { expertCountsOf } from '../shared/moe/expert-counts.js';
import { traceHeader, traceRows } from '../shared/moe/route-trace-write.js';
import { addRequests, routingOptimum, type LayerRequests } from '../shared/moe/routing-optimum.js';
import type { LoadParams, RoutingResult } from '../shared/worker-protocol.js';
import { WorkerError } from './worker-error.js';

const ROUTER = /^blk\.(\d+)\.ffn_gate_inp\.weight$/;

interface MoeShape {
  arch: string;
  layerIds: number[];
  experts: number;
  used: number;
  expertBytes: Map<number, number>;
}

/** The model's MoE layers (those with a router), experts, experts per token and each layer's bytes of one expert; null for a dense model. */
export function moeShapeOf(model: NativeModel): MoeShape | null {
  const md = model.info().metadata;
  const counts = expertCountsOf(md);
  if (!counts) return null;
  const { experts, used } = counts;
  const arch = md['general.architecture'] ?? '';
  const layers = new Set<number>();
  const total = new Map<number, number>();
  for (const t of model.tensors()) {
    const r = ROUTER.exec(t.name);
    if (r) layers.add(Number(r[1]));
    const l = /^blk\.(\d+)\./.exec(t.name);
    if (l && isExpertTensor(t.name)) total.set(Number(l[1]), (total.get(Number(l[1])) ?? 0) + t.bytes);
  }
  if (layers.size === 0) return null;
  const expertBytes = new Map([...total].map(([l, b]) => [l, Math.round(b / experts)]));
  return { arch, layerIds: [...layers].sort((a, b) => a - b), experts, used, expertBytes };
}

/** The host checked it before the load; read again here, as the worker reads its own inputs. */
function readTrace(path: string): RouteTrace {
  try {
    return readRouteTrace(path, 'routing trace');
  } catch (e) {
    if (e instanceof UsageError) throw new WorkerError('BAD_ARGUMENT', e.message);
    throw e;
  }
}

export class RoutingLog {
  private readonly requests: LayerRequests = new Map();
  private replaced = 0;
  private promptWraps = 0;
  private decodeWraps = 0;
  private dropped = 0;
  /** Requests let go to keep the log bounded (the optimum then covers the newer ones). */
  private forgotten = 0;
  /** Set once the residency runtime has sized the expert cache (null: no cache). */
  slotsPerLayer: number | null = null;

  private constructor(
    private readonly shape: MoeShape,
    private readonly trace: RouteTrace | null,
    private readonly params: NonNullable<LoadParams['routing']>,
  ) {}

  /** For a mixture of experts whose load asks for routing (replay, record, or the optimum): the log; else null. */
  static open(model: NativeModel, params: LoadParams): RoutingLog | null {
    const r = params.routing;
    if (!r || (!r.trace && !r.out && !r.optimum)) return null;
    const shape = moeShapeOf(model);
    if (!shape) {
      if (r.trace || r.out) throw new WorkerError('BAD_ARGUMENT', 'routing traces are for mixtures of experts; this model has no router');
      return null;
    }
    const trace = r.trace ? readTrace(r.trace) : null;
    const mismatch = trace ? traceShapeMismatch(trace, { layers: shape.layerIds.length, experts: shape.experts, used: shape.used }) : null;
    if (mismatch) throw new WorkerError('BAD_ARGUMENT', mismatch);
    if (r.out) {
      try {
        writeFileSync(r.out, traceHeader({ model: basename(params.modelPath), ...shape }));
      } catch (e) {
        throw new WorkerError('BAD_ARGUMENT', `cannot write the routing trace ${r.out}: ${(e as Error).message}`);
      }
    }
    return new RoutingLog(shape, trace, r);
  }

  /**
   * Whether the tap must stay on once the expert cache is sized: a trace to replay or a file to
   * write always, the optimum only beside an expert cache (else the tap would split the graph at
   * every router for nothing).
   */
  needed(): boolean {
    return this.params.trace !== undefined || this.params.out !== undefined || this.slotsPerLayer !== null;
  }

  /** createContext's `routing` option. */
  nativeOption(): NonNullable<NativeContextOptions['routing']> {
    const t = this.trace;
    return {
      moeLayers: this.shape.layerIds,
      experts: this.shape.experts,
      used: this.shape.used,
      record: true,
      recordWeights: this.params.out !== undefined,
      ...(t ? { replay: { promptSteps: t.promptSteps, decodeSteps: t.decodeSteps, prompt: t.prompt, decode: t.decode } } : {}),
    };
  }

  /** What the tap recorded since the last generation: written out, and the run's summary so far. */
  absorb(taken: NativeRouting | null): RoutingResult {
    if (taken) {
      this.forgotten += addRequests(this.requests, taken, this.shape.used);
      this.replaced += taken.replacedTokens;
      this.promptWraps += taken.promptWraps;
      this.decodeWraps += taken.decodeWraps;
      this.dropped += taken.droppedIds;
      if (this.params.out) appendFileSync(this.params.out, traceRows(taken, this.shape.used, this.shape.expertBytes));
    }
    const opt = this.slotsPerLayer !== null ? routingOptimum(this.requests, this.slotsPerLayer, this.shape.expertBytes) : null;
    return {
      trace: this.params.trace ?? null,
      recordedTo: this.params.out ?? null,
      replacedSelections: this.replaced,
      promptWraps: this.promptWraps,
      decodeWraps: this.decodeWraps,
      droppedIds: this.dropped,
      forgottenRequests: this.forgotten,
      optimum: opt,
    };
  }
}
