// How a supervised run ended, decided from facts only: the worker's exit, whether the
// supervisor's timeout fired, and the group's OOM-kill counter. Pure.
import { signalNote } from '../signal-note.js';

export type OutcomeStatus = 'ok' | 'oom' | 'timeout' | 'error';

export interface OutcomeFacts {
  workerExitCode: number | null;
  workerSignal: string | null;
  /** Signal number of workerSignal (128 + it is the shell-style exit code). */
  workerSignalNumber: number | null;
  timedOut: boolean;
  timeoutS: number;
  /** Reason given to kill() by the caller, if the run was stopped on purpose. */
  stoppedReason: string | null;
  /** OOM kills counted in the group; null when the kernel does not say. */
  oomKills: number | null;
  /** The worker could not be started (spawn error, could not join the group). */
  startError: string | null;
}

export interface OutcomeVerdict {
  status: OutcomeStatus;
  /** Exit code for the CLI: 0 ok, 124 timeout, 137 OOM, otherwise the worker's. */
  exitCode: number;
  message: string;
}

function how(f: OutcomeFacts): string {
  if (f.workerSignal) return `killed by ${f.workerSignal}`;
  return `exited with code ${f.workerExitCode ?? '?'}`;
}

export function classifyOutcome(f: OutcomeFacts): OutcomeVerdict {
  if (f.startError !== null) {
    return { status: 'error', exitCode: 1, message: `the worker could not be started: ${f.startError}` };
  }
  if (f.timedOut) {
    return {
      status: 'timeout',
      exitCode: 124,
      message: `timeout after ${f.timeoutS} s: every process in the group was killed`,
    };
  }
  if (f.oomKills !== null && f.oomKills > 0) {
    const base = `killed by the memory cap (${f.oomKills} OOM kill${f.oomKills === 1 ? '' : 's'})`;
    // The OOM killer may pick a child of the worker; the run still did not fit.
    const tail = f.workerSignal === 'SIGKILL' ? '' : `; the worker then ${how(f)}`;
    return { status: 'oom', exitCode: 137, message: base + tail };
  }
  if (f.stoppedReason !== null) {
    return { status: 'error', exitCode: 1, message: `stopped: ${f.stoppedReason} (worker ${how(f)})` };
  }
  if (f.workerSignal !== null) {
    const unknown =
      f.workerSignal === 'SIGKILL' && f.oomKills === null
        ? '; this kernel does not count OOM kills, so it may have been the memory cap'
        : '';
    return {
      status: 'error',
      exitCode: f.workerSignalNumber !== null ? 128 + f.workerSignalNumber : 1,
      message: `the worker was killed by ${f.workerSignal}${signalNote(f.workerSignal)}${unknown}`,
    };
  }
  if (f.workerExitCode === 0) return { status: 'ok', exitCode: 0, message: 'the worker exited normally' };
  return {
    status: 'error',
    exitCode: f.workerExitCode ?? 1,
    message: `the worker exited with code ${f.workerExitCode ?? '?'}`,
  };
}
