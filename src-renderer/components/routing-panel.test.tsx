// The dashboard's routing panel: read ÷ optimal with the optimum's bytes and what the optimum is,
// the trace, read-ahead; while a turn runs, the optimum is said to come when it ends.
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { routingFromReport, type RoutingView } from '../lib/routing-model.js';
import { RoutingPanel } from './RoutingPanel.js';

/** The text of the element with this test id (no nested tags but <b>). */
const text = (html: string, id: string) => (new RegExp(`data-testid="${id}"[^>]*>(.*?)</div>`).exec(html)?.[1] ?? '').replace(/<[^>]+>/g, '');

const view = routingFromReport({
  routing: { trace: '/t/gemma-4-26b-a4b.route.csv', replaced_selections: 447, prompt_wraps: 0, decode_wraps: 0, slots_per_layer: 62, optimal_read_bytes: 32 * 1024 * 1024, lru_read_bytes: 33 * 1024 * 1024, read_over_optimal: 1.004, optimal_decode_bytes_per_token: 1024 },
  experts: { read_bytes: 33 * 1024 * 1024, prefetch_issued_share: 0.003, decode_prediction_accuracy: 0.042, prefetch_wasted_bytes: 0, prefetch_dropped: 0 },
}) as RoutingView;

describe('routing panel', () => {
  it("read ÷ optimal, the optimum's bytes and what it is, the trace, read-ahead", () => {
    const html = renderToStaticMarkup(<RoutingPanel view={view} live={false} />);
    expect(html).toContain('data-read-over-optimal="1.004"');
    expect(text(html, 'routing-read-over-optimal')).toBe('1.00×');
    expect(text(html, 'routing-optimal-bytes')).toBe('32.0 MiB');
    expect(text(html, 'routing-optimum-note')).toBe("Belady&#x27;s optimum for this routing and cache size: the MoE&#x27;s floor");
    expect(text(html, 'routing-trace')).toBe('Routing: replayed from gemma-4-26b-a4b.route.csv (447 token × layer selections); not started over');
    expect(html).toMatch(/data-testid="routing-issued-share">0\.3%/);
    expect(html).toMatch(/data-testid="routing-recall">4\.2%/);
    expect(html).toMatch(/data-testid="routing-wasted">0 B/);
  });

  it('live, before the turn ends: the optimum is not yet known, and says when it will be', () => {
    const html = renderToStaticMarkup(<RoutingPanel view={{ ...view, optimalReadBytes: null, readOverOptimal: null }} live />);
    expect(html).toContain('data-read-over-optimal=""');
    expect(text(html, 'routing-read-over-optimal')).toBe('—');
    expect(text(html, 'routing-optimum-note')).toMatch(/: known when the turn ends\.$/);
  });
});
