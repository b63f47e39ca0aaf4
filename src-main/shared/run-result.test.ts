// How a run's end becomes the CLI's exit code (DESIGN's table, docs/architecture.md).
import { describe, expect, it } from 'vitest';
import { runExitCode, type RunOnceResult } from './run-result.js';
import type { SupervisedOutcome } from './cgroup/report.js';

function result(p: Partial<RunOnceResult>): RunOnceResult {
  return { model: null, generation: null, error: null, workerExit: null, capped: null, coldStart: null, samples: [], cgroupSamples: [], startedAt: '', wallMs: 0, startToFirstTokenMs: null, ...p };
}
const cap = (status: SupervisedOutcome['status']) => ({ status }) as SupervisedOutcome;

describe('runExitCode', () => {
  it('0 for a run that ended well', () => expect(runExitCode(result({}))).toBe(0));
  it('2 when the worker refused the model (bad input, as the CLI refuses it)', () => {
    expect(runExitCode(result({ error: { code: 'BAD_MODEL', message: 'x.gguf: not a GGUF file' } }))).toBe(2);
  });
  it('1 for any other failure', () => {
    expect(runExitCode(result({ error: { code: 'LOAD_FAILED', message: 'x' } }))).toBe(1);
    expect(runExitCode(result({ error: { code: 'WORKER_EXITED', message: 'x' } }))).toBe(1);
  });
  it('137 and 124 for the enforced cap, whatever error the host saw', () => {
    expect(runExitCode(result({ capped: cap('oom'), error: { code: 'WORKER_EXITED', message: 'x' } }))).toBe(137);
    expect(runExitCode(result({ capped: cap('timeout'), error: { code: 'WORKER_EXITED', message: 'x' } }))).toBe(124);
  });
});
