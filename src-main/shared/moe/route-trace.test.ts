import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRouteTrace, RouteTraceError, traceShapeMismatch, ROUTE_TRACE_HEADER, ROUTE_TRACE_MAGIC } from './route-trace.js';
import { traceHeader, traceRows } from './route-trace-write.js';

const TRACES = join(__dirname, '..', '..', '..', 'resources', 'traces');
const csv = (rows: string[], head = `${ROUTE_TRACE_MAGIC}\n${ROUTE_TRACE_HEADER}`): string => `${head}\n${rows.join('\n')}\n`;

describe('routing traces', () => {
  it('reads the published traces with the shapes they were recorded on', () => {
    const gemma = parseRouteTrace(readFileSync(join(TRACES, 'gemma-4-26b-a4b.route.csv'), 'utf8'));
    expect([gemma.layerIds.length, gemma.experts, gemma.used, gemma.promptSteps, gemma.decodeSteps]).toEqual([30, 128, 6, 29, 128]);
    expect(gemma.arch).toBe('gemma4');
    expect(gemma.expertBytes.get(7)).toBe(3593216);
    const oss = parseRouteTrace(readFileSync(join(TRACES, 'gpt-oss-120b-k2.route.csv'), 'utf8'));
    expect([oss.layerIds.length, oss.experts, oss.used, oss.promptSteps, oss.decodeSteps]).toEqual([36, 128, 2, 85, 64]);
    // llama.cpp computes a prompt's last layer for its last token only: the other steps lack it.
    const last = (step: number): number[] => Array.from(oss.prompt.subarray((step * 36 + 35) * 2, (step * 36 + 36) * 2));
    expect(last(0)).toEqual([-1, -1]);
    expect(last(84).every((e) => e >= 0)).toBe(true);
  });

  it('orders steps by turn and step whatever the row order, and keeps each token slot by slot', () => {
    const t = parseRouteTrace(csv(['0,1,5,3,1,9,0.4,0,0', '0,0,0,3,0,2,0.5,0,0', '0,0,0,3,1,4,0.5,0,0', '0,1,5,3,0,7,0.6,0,0', '1,1,0,3,0,1,1,0,0', '1,1,0,3,1,0,0,0,0']));
    expect([t.layerIds, t.used, t.experts, t.promptSteps, t.decodeSteps]).toEqual([[3], 2, 10, 1, 2]);
    expect(Array.from(t.decode)).toEqual([7, 9, 1, 0]);
    expect(Array.from(t.prompt)).toEqual([2, 4]);
  });

  it.each([
    ['not a trace', 'turn,phase\n1,2', /first line must be/],
    ['a header without the layer column', `${ROUTE_TRACE_MAGIC}\nturn,phase,step,slot,expert\n0,1,0,0,1`, /'layer' is missing/],
    ['a non-integer expert', csv(['0,1,0,0,0,x,0,0,0']), /line 3: expert must be an integer/],
    ['a phase other than 0 and 1', csv(['0,2,0,0,0,1,0,0,0']), /phase must be 0/],
    ['no decode steps', csv(['0,0,0,0,0,1,0,0,0']), /no decode steps/],
    ['a token routed to the same expert twice', csv(['0,1,0,0,0,1,0,0,0', '0,1,0,0,1,1,0,0,0']), /same expert twice/],
    ['a token missing one of its experts', `${ROUTE_TRACE_MAGIC}\n# n_expert_used=2\n${ROUTE_TRACE_HEADER}\n0,1,0,0,0,1,0,0,0`, /routes 1 of its 2 experts/],
    ['an expert past the declared count', `${ROUTE_TRACE_MAGIC}\n# n_expert=4\n${ROUTE_TRACE_HEADER}\n0,1,0,0,0,4,0,0,0`, /expert 4 is past the 4 experts/],
    ['fewer layers than declared', `${ROUTE_TRACE_MAGIC}\n# n_layer=2\n${ROUTE_TRACE_HEADER}\n0,1,0,0,0,1,0,0,0`, /n_layer=2 but routes 1/],
  ])('refuses %s with a clear error', (_what, text, message) => {
    expect(() => parseRouteTrace(text)).toThrow(RouteTraceError);
    expect(() => parseRouteTrace(text)).toThrow(message);
  });

  it('names both shapes when a trace does not fit the model', () => {
    const t = parseRouteTrace(csv(['0,1,0,0,0,1,0,0,0', '0,1,0,0,1,3,0,0,0']));
    expect(traceShapeMismatch(t, { layers: 1, experts: 4, used: 2 })).toBeNull();
    expect(traceShapeMismatch(t, { layers: 48, experts: 128, used: 8 })).toBe('the routing trace is for 1 MoE layers × 4 experts, 2 per token; the model has 48 MoE layers × 128 experts, 8 per token');
  });

  it('reads back what a run writes: the same experts at the same steps, and the weights kept', () => {
    const header = traceHeader({ model: 'my model.gguf', arch: 'qwen3moe', layerIds: [0, 1], experts: 8, used: 2, expertBytes: new Map([[0, 100], [1, 100]]) });
    // Two prompt tokens (the last layer for the last one only), then one decoded token.
    const selections = Int32Array.from([0, 0, 0, 0, 2, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 0, 1, 2, 1, 1]);
    const ids = Int32Array.from([1, 2, 3, 4, 5, 6, 7, 0, 2, 3]);
    const weights = Float32Array.from([0.5, 0.5, 0.25, 0.75, 1, 0, 0.5, 0.5, 0.6, 0.4]);
    const text = header + traceRows({ selections, ids, weights }, 2, new Map([[0, 100], [1, 100]]));
    expect(text).toContain('# model=my_model.gguf arch=qwen3moe n_layer=2 n_expert=8 n_expert_used=2');
    expect(text).toContain('0,1,2,1,0,2,0.600000,0,100');
    const t = parseRouteTrace(text);
    expect([t.promptSteps, t.decodeSteps]).toEqual([2, 1]);
    expect(Array.from(t.prompt)).toEqual([1, 2, -1, -1, 3, 4, 5, 6]);
    expect(Array.from(t.decode)).toEqual([7, 0, 2, 3]);
  });
});
