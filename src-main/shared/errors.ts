// Exit codes are part of the CLI contract (docs/architecture.md): 0 ok, 1 runtime failure,
// 2 bad usage or bad input, 124 enforced timeout, 137 killed by the enforced cap.
export const EXIT = { ok: 0, failure: 1, usage: 2, timeout: 124, oomKilled: 137 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad flags, bad values, bad input files: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}
