// `ramforge bench-serve MODEL --ram SIZE --clients 1,2,4,8`: concurrent requests decoded
// together. For each client count, a fresh worker under the cap is loaded with that many
// sequences, and that many clients each send one request at once; aggregate and per-request
// decode tok/s, tokens per weight pass, and whether each client's tokens equal its solo run.
import { typedFlags, type CommandSpec, type FlagSpec, type ParsedArgs } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { loadParams, prepareRun, shapeNote } from '../run-config.js';
import { LOAD_FLAGS, MEMORY_FLAGS, flagValues } from '../run-flags.js';
import { detectCgroup } from '../../supervisor/index.js';
import { startWorker } from '../../worker/start-worker.js';
import { GREEDY, LIMITS } from '../../shared/settings/run-settings.js';
import type { GenerationResult, ServeStep } from '../../shared/worker-protocol.js';
import { formatBytes } from '../../shared/size.js';
import type { WorkerResidency } from '../../shared/report/build-report.js';

const PROMPTS = [
  'Once upon a time',
  'The old lighthouse keeper',
  'In the year 2200, the city',
  'She opened the letter and',
  'Rain fell on the harbour while',
  'The recipe begins with',
  'Far beyond the mountains',
  'Every morning the baker',
];

type Counters = NonNullable<WorkerResidency['counters']>;

interface Row {
  clients: number;
  aggregateTokS: number;
  perRequestTokS: number[];
  tokensPerPass: number;
  msPerPass: number | null;
  /** Per weight pass (prefill included): bytes streamed, ms compute waited for a read, ms reads were in flight. */
  readPerPass: number | null;
  stallMsPerPass: number | null;
  ioBusyMsPerPass: number | null;
  /** Times the cgroup limit was hit while the requests ran (after load). */
  limitHits: number | null;
  identical: boolean[];
  results: GenerationResult[];
}

const BENCH_SERVE_FLAGS = [
  { name: 'clients', type: 'list', default: '1,2,4,8', valueName: 'LIST', description: 'client counts; each sends one request at once' },
  { name: 'tokens', type: 'int', default: 16, range: LIMITS.maxTokens, description: 'tokens each request decodes (greedy)' },
  { name: 'json', type: 'boolean', description: 'print one JSON object instead of the table' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'bench-serve',
  summary: 'concurrent requests decoded together under a cap: aggregate and per-request tok/s per client count',
  positionals: [{ name: 'model', description: 'GGUF file, split shard, or directory', required: true }],
  flags: [
    ...BENCH_SERVE_FLAGS,
    ...LOAD_FLAGS.filter((f) => !['parallel', 'draft', 'draft-max', 'draft-min'].includes(f.name)),
    ...MEMORY_FLAGS.filter((f) => !['enforce-ram'].includes(f.name)),
  ],
  details: 'Example:\n  ramforge bench-serve model-1b.gguf --ram 406M --clients 1,2,4 --tokens 16',
  async run(args: ParsedArgs): Promise<number> {
    const f = args.flags;
    const modelPath = args.positionals[0] as string;
    const ram = flagValues(f).ram;
    if (ram === undefined) throw new UsageError('--ram SIZE is required (the cap every run is held to)');
    const own = typedFlags(f, BENCH_SERVE_FLAGS);
    const clients = own.clients.map((c) => {
      const n = Number(c);
      if (!Number.isInteger(n) || n < 1 || n > PROMPTS.length) throw new UsageError(`--clients: each count must be 1..${PROMPTS.length} (got '${c}')`);
      return n;
    });
    const tokens = own.tokens;
    if (!(tokens >= 2)) throw new UsageError('--tokens must be at least 2');
    const detection = detectCgroup();
    if (!detection.usable) throw new UsageError(`bench-serve holds every run to the cap: ${detection.reason}`);
    const opened = await openModelInput(modelPath);
    const files = opened.shards.map((s) => s.path);

    const runAt = (n: number, prompts: string[]) => runServed({ opened, modelPath, files, flags: f, ram, tokens }, n, prompts);

    // Solo: each prompt alone, one sequence.
    const maxClients = Math.max(...clients);
    const solo: number[][] = [];
    if (!f['json']) process.stderr.write(`ramforge bench-serve: solo runs of ${maxClients} prompts …\n`);
    for (const p of PROMPTS.slice(0, maxClients)) solo.push((await runAt(1, [p])).results[0]?.tokens ?? []);

    const rows: Row[] = [];
    for (const n of clients) {
      if (!f['json']) process.stderr.write(`ramforge bench-serve: ${n} concurrent client${n > 1 ? 's' : ''} …\n`);
      rows.push(rowOf(n, tokens, await runAt(n, PROMPTS.slice(0, n)), solo));
    }
    printRows(rows, { json: Boolean(f['json']), modelPath, ram, tokens });
    return rows.every((r) => r.identical.every(Boolean)) ? 0 : 1;
  },
};

interface ServedContext {
  opened: Awaited<ReturnType<typeof openModelInput>>;
  modelPath: string;
  files: string[];
  flags: ParsedArgs['flags'];
  ram: number;
  tokens: number;
}

type Served = { results: GenerationResult[]; wallMs: number; steps: ServeStep[]; counters: Counters | null; limitHits: number | null };

/** A fresh worker under the cap, loaded with `n` sequences, decoding `prompts` at once. */
async function runServed(cx: ServedContext, n: number, prompts: string[]): Promise<Served> {
  const flags = { ...cx.flags, parallel: n, 'enforce-ram': true };
  const prepared = prepareRun(cx.opened, flags);
  if (!cx.flags['json']) process.stderr.write(`ramforge bench-serve: ${n} sequence${n > 1 ? 's' : ''} — ${shapeNote(prepared.shape).slice('ramforge: '.length)}`);
  const load = loadParams(cx.modelPath, flags, prepared);
  const steps: ServeStep[] = [];
  const w = await startWorker({ cap: { limitBytes: cx.ram, timeoutS: flagValues(cx.flags)['enforce-timeout'] }, coldStart: cx.files, onServeStep: (s) => steps.push(s), ...(prepared.gpu ? { env: { ...prepared.gpu.env }, gpu: true } : {}) });
  try {
    await w.host.load(load);
    const hitsBefore = w.cgroup()?.max_events ?? null;
    const t0 = performance.now();
    const results = await Promise.all(prompts.map((prompt) => w.host.generate({ prompt, maxTokens: cx.tokens, sampling: GREEDY }, () => undefined)));
    const wallMs = performance.now() - t0;
    // The engine's counters are cumulative: the request that finished last saw them all.
    const counters = results.map((r) => (r as { residency?: WorkerResidency }).residency?.counters ?? null).reduce<Counters | null>((a, c) => (c && (!a || Number(c['prefetches']) >= Number(a['prefetches'])) ? c : a), null);
    const hitsAfter = w.cgroup()?.max_events ?? null;
    return { results, wallMs, steps, counters, limitHits: hitsBefore === null || hitsAfter === null ? null : hitsAfter - hitsBefore };
  } finally {
    await w.host.close();
    const outcome = await w.capped;
    if (outcome && outcome.status !== 'ok') throw new Error(`the run under the cap ended: ${outcome.message}`);
  }
}

/** One client count's row: throughput, passes, reads, and whether each client's tokens are its solo run's. */
function rowOf(n: number, tokens: number, served: Served, solo: number[][]): Row {
  const { results, wallMs, steps, counters, limitHits } = served;
  const decoded = results.reduce((s, r) => s + r.tokens.length, 0);
  const decodeSteps = steps.filter((s) => s.decoded > 0);
  // Weight passes: the batch server reports each; one sequence makes one per token.
  const passes = n > 1 ? steps.length : tokens;
  const per = (c: Counters | null, key: string): number | null => (c && typeof c[key] === 'number' && passes > 0 ? (c[key] as number) / passes : null);
  return {
    clients: n,
    aggregateTokS: (decoded * 1000) / wallMs,
    perRequestTokS: results.map((r) => r.timings.decodeTokS),
    // One sequence runs without the batch server: one token per pass by construction.
    tokensPerPass: decodeSteps.length ? decodeSteps.reduce((s, x) => s + x.decoded, 0) / decodeSteps.length : 1,
    msPerPass: decodeSteps.length ? decodeSteps.reduce((s, x) => s + x.ms, 0) / decodeSteps.length : null,
    limitHits,
    readPerPass: per(counters, 'prefetchBytes'),
    stallMsPerPass: per(counters, 'stallMs'),
    ioBusyMsPerPass: per(counters, 'ioBusyMs'),
    identical: results.map((r, i) => JSON.stringify(r.tokens) === JSON.stringify(solo[i])),
    results,
  };
}

function printRows(rows: Row[], o: { json: boolean; modelPath: string; ram: number; tokens: number }): void {
  const base = rows.find((r) => r.clients === 1)?.aggregateTokS ?? rows[0]?.aggregateTokS ?? 0;
  if (o.json) {
    process.stdout.write(
      JSON.stringify(
        {
          model: o.modelPath,
          cap_bytes: o.ram,
          tokens: o.tokens,
          rows: rows.map((r) => ({
            clients: r.clients,
            aggregate_tok_s: r.aggregateTokS,
            vs_one_client: base > 0 ? r.aggregateTokS / base : null,
            per_request_tok_s: r.perRequestTokS,
            tokens_per_weight_pass: r.tokensPerPass,
            ms_per_weight_pass: r.msPerPass,
            limit_hits: r.limitHits,
            read_bytes_per_pass: r.readPerPass,
            stall_ms_per_pass: r.stallMsPerPass,
            io_busy_ms_per_pass: r.ioBusyMsPerPass,
            identical_to_solo: r.identical,
          })),
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    const head = ['clients', 'aggregate tok/s', 'vs 1 client', 'per request tok/s (mean, min)', 'tokens per weight pass', 'ms per pass', 'read per pass', 'limit hits', 'same tokens as solo'];
    const body = rows.map((r) => [
      String(r.clients),
      r.aggregateTokS.toFixed(2),
      base > 0 ? `${(r.aggregateTokS / base).toFixed(2)}×` : '—',
      `${(r.perRequestTokS.reduce((a, b) => a + b, 0) / r.perRequestTokS.length).toFixed(2)}, ${Math.min(...r.perRequestTokS).toFixed(2)}`,
      r.tokensPerPass.toFixed(2),
      r.msPerPass === null ? '—' : r.msPerPass.toFixed(0),
      r.readPerPass === null ? '—' : formatBytes(r.readPerPass),
      r.limitHits === null ? '—' : String(r.limitHits),
      r.identical.every(Boolean) ? 'yes' : `NO (${r.identical.filter((x) => !x).length} differ)`,
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
    const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
    process.stdout.write([fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt)].join('\n') + '\n');
  }
}
