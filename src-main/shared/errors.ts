// Exit codes are part of the CLI contract (docs/architecture.md): 0 ok, 1 runtime failure,
// 2 bad usage or bad input, 124 enforced timeout, 137 killed by the enforced cap.
export const EXIT = { ok: 0, failure: 1, usage: 2, timeout: 124, oomKilled: 137 } as const;

/** An error that ends a command with the exit code it means (raised by the CLI, the supervisor, the app's file checks). */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/** Bad flags, bad values, bad input files: exit 2. */
export class UsageError extends ExitError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}
