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
