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
  const on = (): void => {
    stopped = true;
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
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
