import { describe, expect, it } from 'vitest';
import { classifyOutcome, type OutcomeFacts } from './outcome.js';

const base: OutcomeFacts = {
  workerExitCode: 0,
  workerSignal: null,
  workerSignalNumber: null,
  timedOut: false,
  timeoutS: 900,
  stoppedReason: null,
  oomKills: 0,
  startError: null,
};

describe('classifyOutcome', () => {
  it('ok only for exit 0 with no OOM kill', () => {
    expect(classifyOutcome(base)).toMatchObject({ status: 'ok', exitCode: 0 });
  });

  it('OOM: SIGKILL with kills counted → 137 and the promised message', () => {
    const v = classifyOutcome({ ...base, workerExitCode: null, workerSignal: 'SIGKILL', workerSignalNumber: 9, oomKills: 2 });
    expect(v).toEqual({ status: 'oom', exitCode: 137, message: 'killed by the memory cap (2 OOM kills)' });
  });

  it('never success when something in the group was OOM-killed, even if the worker exited 0', () => {
    const v = classifyOutcome({ ...base, oomKills: 1 });
    expect(v.status).toBe('oom');
    expect(v.exitCode).toBe(137);
    expect(v.message).toMatch(/1 OOM kill\b.*exited with code 0/);
  });

  it('timeout wins over the SIGKILL it caused → 124', () => {
    const v = classifyOutcome({ ...base, workerExitCode: null, workerSignal: 'SIGKILL', workerSignalNumber: 9, timedOut: true, timeoutS: 1 });
    expect(v).toMatchObject({ status: 'timeout', exitCode: 124 });
    expect(v.message).toMatch(/^timeout after 1 s/);
  });

  it('a SIGKILL from elsewhere with no OOM kill is an error, not an OOM', () => {
    const v = classifyOutcome({ ...base, workerExitCode: null, workerSignal: 'SIGKILL', workerSignalNumber: 9 });
    expect(v).toMatchObject({ status: 'error', exitCode: 137 });
    expect(v.message).not.toMatch(/memory cap/);
  });

  it('says the cap may be the cause when the kernel cannot count OOM kills', () => {
    const v = classifyOutcome({ ...base, workerExitCode: null, workerSignal: 'SIGKILL', workerSignalNumber: 9, oomKills: null });
    expect(v.status).toBe('error');
    expect(v.message).toMatch(/may have been the memory cap/);
  });

  it('passes a worker failure code through', () => {
    expect(classifyOutcome({ ...base, workerExitCode: 3 })).toMatchObject({ status: 'error', exitCode: 3 });
    expect(classifyOutcome({ ...base, workerExitCode: null, workerSignal: 'SIGSEGV', workerSignalNumber: 11 })).toMatchObject({
      status: 'error',
      exitCode: 139,
    });
  });

  it('reports a start failure and a deliberate stop as errors', () => {
    expect(classifyOutcome({ ...base, workerExitCode: null, startError: 'spawn /bin/sh ENOENT' })).toMatchObject({ status: 'error', exitCode: 1 });
    const v = classifyOutcome({ ...base, workerExitCode: null, workerSignal: 'SIGKILL', workerSignalNumber: 9, stoppedReason: 'user cancelled' });
    expect(v).toMatchObject({ status: 'error', exitCode: 1 });
    expect(v.message).toMatch(/user cancelled/);
  });
});
