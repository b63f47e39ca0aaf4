// What the OpenAI-compatible API server reports to the dashboard: requests in flight and
// waiting, and what each weight pass of the batch server produced. Pushed as the
// 'server-stats' API event about once a second while the server runs (and on every change of
// the request counts).

export interface ServerStats {
  /** Where the API listens (http://127.0.0.1:PORT/v1), null when it is off. */
  url: string | null;
  /** Requests being decoded now (each holds one KV sequence). */
  activeRequests: number;
  /** Sequences the loaded model was given (`--parallel N`; 1 = requests take turns). */
  sequences: number;
  /** Requests accepted and waiting for a free sequence. */
  queued: number;
  /** Requests refused because the queue was full (429/503) since the server started. */
  refused: number;
  /** Tokens generated per second over all requests, the last few seconds; null when idle. */
  aggregateTokS: number | null;
  /** Generated tokens per weight pass, the last few seconds (1 without batching); null when idle. */
  tokensPerPass: number | null;
  /** Requests finished since the server started. */
  completed: number;
}
