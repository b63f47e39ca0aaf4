// The inference worker's one error class: a code the UI and the API map (BUSY, LOAD_FAILED,
// DRAFT_VOCAB, WORKER_EXITED, …) and a message. The engine and the draft loader throw it inside
// the worker; the host raises it again on its side from the worker's answer.
export class WorkerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerError';
  }
}

/** The native error's own code (BUSY, FREED, BAD_ARGUMENT, …) when it has one, else `fallback`. */
export function codeOf(e: unknown, fallback: string): string {
  const c = (e as { code?: unknown })?.code;
  return typeof c === 'string' && /^[A-Z_]+$/.test(c) ? c : fallback;
}
