// The routing fields of the load settings: empty is none, a path is taken in full (trimmed), a
// relative path is refused with the field's name (the host's folder is not the user's), and the
// routing is never written over the trace it replays.
import { describe, expect, it } from 'vitest';
import { routingPathPatch } from './routing-settings.js';

const none = { routingTrace: null, routingTraceOut: null };

describe('routing settings', () => {
  it('a blank field is none; a full path is taken, trimmed', () => {
    expect(routingPathPatch({ routingTrace: '/t/a.csv', routingTraceOut: null }, 'routingTrace', '  ')).toEqual({ ok: true, patch: { routingTrace: null } });
    expect(routingPathPatch(none, 'routingTrace', ' /t/gemma.route.csv ')).toEqual({ ok: true, patch: { routingTrace: '/t/gemma.route.csv' } });
    expect(routingPathPatch(none, 'routingTraceOut', 'C:\\runs\\out.csv')).toEqual({ ok: true, patch: { routingTraceOut: 'C:\\runs\\out.csv' } });
  });

  it('a relative path is refused, naming the field', () => {
    expect(routingPathPatch(none, 'routingTrace', 'traces/a.csv')).toEqual({ ok: false, error: "Routing trace: give the file's full path (e.g. /home/me/traces/run.route.csv)" });
    expect(routingPathPatch(none, 'routingTraceOut', 'out.csv')).toMatchObject({ ok: false, error: expect.stringMatching(/^Write routing to: give the file's full path/) });
  });

  it('the routing is not written to the trace being replayed', () => {
    expect(routingPathPatch({ routingTrace: '/t/a.csv', routingTraceOut: null }, 'routingTraceOut', '/t/a.csv')).toEqual({ ok: false, error: 'Write routing to: the routing is written to another file than the trace it replays' });
    expect(routingPathPatch({ routingTrace: null, routingTraceOut: '/t/a.csv' }, 'routingTrace', '/t/a.csv').ok).toBe(false);
    expect(routingPathPatch({ routingTrace: '/t/a.csv', routingTraceOut: null }, 'routingTraceOut', '/t/b.csv').ok).toBe(true);
  });
});
