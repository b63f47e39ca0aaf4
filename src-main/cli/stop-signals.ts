// SIGINT and SIGTERM for a command that runs until stopped (serve): caught from the command's
// first line, so a signal that arrives while it is still starting (reading the model's header,
// starting servers, loading) stops it as cleanly as one that arrives later, instead of leaving
// work in flight that nothing will end. A second signal has Node's default effect.
export interface StopSignals {
  /** Whether a signal has arrived. */
  readonly stopped: boolean;
  /** Resolves when one arrives. */
  readonly arrived: Promise<void>;
}

export function catchStopSignals(): StopSignals {
  let stopped = false;
  let arrive: () => void = () => {};
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  // The handlers stay installed after the first signal: the supervisor's own handler (which
  // removes live memory groups) re-raises a signal nobody else listens for, and a command that
  // had let go of it would be killed by that re-raise mid-shutdown (serve under --enforce-ram
  // ended by SIGTERM, not exit 0). The second signal lets go and re-raises itself.
  const on = (sig: NodeJS.Signals): void => {
    if (stopped) {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      process.kill(process.pid, sig);
      return;
    }
    stopped = true;
    arrive();
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    get stopped() {
      return stopped;
    },
    arrived,
  };
}
