// The app's own chat turn, run end to end: it waits for a sequence like any API request, streams
// tokens to the app, keeps the conversation and the turn's report durable before it acknowledges
// the turn, and says why a turn failed. It holds what only a turn needs: the request in flight
// (a worker crash is reported against it), the app's abort, and the last turn's report.
import { randomUUID } from 'node:crypto';
import type { ApiEvent, EngineState } from '../shared/api.js';
import type { GenerateParams, GenerationResult } from '../shared/worker-protocol.js';
import type { GenerationGate } from '../api/gate.js';
import type { Throughput } from '../api/throughput.js';
import type { KeptTurn } from './kept-turn.js';
import type { TurnRecord } from './report.js';
import type { ReportStore } from './report-store.js';
import { keepTurnEnd, type LoadedModel } from './turn-end.js';
import type { TurnSamples } from './turn-samples.js';
import type { WorkerSlot } from './worker-slot.js';

/** What a turn reads and changes of the service it runs in. */
export interface TurnDeps {
  worker: WorkerSlot;
  status(): EngineState['status'];
  setState(patch: Partial<EngineState>): void;
  /** A problem saving the turn's report: kept as the state's message without an event of its own. */
  problem(message: string): void;
  emit(e: ApiEvent): void;
  loaded(): LoadedModel | null;
  gate(): GenerationGate;
  throughput: Throughput;
  samples: TurnSamples;
  reports: ReportStore;
  buildReport?: (t: TurnRecord) => Promise<unknown>;
}

export class TurnRunner {
  /** The app's request in flight, if any. */
  private active: string | null = null;
  private uiAbort: AbortController | null = null;
  /** The last turn's report: undefined until known, null where none was kept. */
  private report: unknown | null | undefined = undefined;

  constructor(private readonly d: TurnDeps) {}

  /** `kept`: the conversation the reply belongs to, saved as it streams and before it is acknowledged. */
  async run(requestId: string, params: GenerateParams, kept: KeptTurn | null = null): Promise<GenerationResult> {
    const d = this.d;
    const h = d.worker.host;
    if (!h || d.status() !== 'ready') {
      const msg = d.status() === 'generating' ? 'busy: a generation is running' : 'no model is loaded';
      await kept?.failed().catch(() => undefined);
      d.emit({ type: 'generation-error', requestId, message: msg });
      throw new Error(msg);
    }
    this.active = requestId;
    d.setState({ status: 'generating', message: null });
    d.samples.newTurn();
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    const ui = new AbortController();
    this.uiAbort = ui;
    let leave: (() => void) | null = null;
    try {
      // The app's chat takes a sequence like any API request (it waits, it is never refused).
      leave = await d.gate().enter({ signal: ui.signal });
      const result = await h.generate(
        params,
        (token) => {
          d.throughput.token();
          kept?.token(token.text);
          d.emit({ type: 'token', requestId, token });
        },
        ui.signal,
      );
      leave();
      leave = null;
      this.active = null;
      // Everything the turn leaves is durable before generation-done acknowledges it.
      this.report = await keepTurnEnd({
        build: d.buildReport,
        loaded: d.loaded(),
        samples: d.samples.list(),
        cgroup: h.cgroupReport(),
        reports: d.reports,
        turn: { generate: params, result, startedAt, wallMs: performance.now() - t0 },
        problem: (message) => d.problem(message),
      });
      await kept?.done(result);
      const reportId = this.report === null ? null : randomUUID();
      d.setState({ status: 'ready' });
      d.emit({ type: 'generation-done', requestId, result, reportId });
      return result;
    } catch (e) {
      await kept?.failed().catch(() => undefined);
      if (!(await d.worker.diedDuring(h))) {
        this.active = null;
        d.setState({ status: 'ready', message: (e as Error).message });
        d.emit({ type: 'generation-error', requestId, message: (e as Error).message });
      }
      throw e;
    } finally {
      leave?.();
      if (this.uiAbort === ui) this.uiAbort = null;
    }
  }

  /** The worker ended: the turn in flight, if any, fails with `message`. */
  workerEnded(message: string): void {
    if (!this.active) return;
    this.d.emit({ type: 'generation-error', requestId: this.active, message });
    this.active = null;
  }

  /** A fresh worker: no turn of the old one is in flight. */
  forget(): void {
    this.active = null;
  }

  /** Stops the app's own generation (API requests keep theirs). */
  abort(): void {
    this.uiAbort?.abort();
  }

  /** The last turn's report: this run's, else the newest saved one. */
  async lastReport(): Promise<unknown | null> {
    if (this.report === undefined) this.report = await this.d.reports.last();
    return this.report;
  }

  /** The last report already known (null where none), without reading the saved ones. */
  knownReport(): unknown | null {
    return this.report ?? null;
  }
}
