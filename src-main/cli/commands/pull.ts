// `ramforge pull URL [--out DIR] [--sha256 HEX] [--ram SIZE]`: download a GGUF model with its
// plan attached. The header is read first (range requests only) and the plan for the budget is
// printed before a byte of weights is fetched; then every file (all shards of a split set) is
// downloaded resumably, checked for free space, verified against a published sha256, and
// renamed into place only when complete.
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { totalmem } from 'node:os';
import { typedFlags, type CommandSpec, type FlagSpec } from '../args.js';
import { ExitError, EXIT, UsageError } from '../../shared/errors.js';
import { downloadFileName, isModelUrl, parseModelUrl, splitSetUrls } from '../../shared/remote/model-url.js';
import { isSha256 } from '../../shared/remote/http-headers.js';
import { formatBytes } from '../../shared/size.js';
import { download, DownloadError, siblingSha256, statfsFreeBytes, type ExpectedSha } from '../../node/remote/download.js';
import { HttpError } from '../../node/remote/http-get.js';
import { defaultDownloadDir } from '../../node/download-dir.js';
import { downloadDiskBandwidth, openRemoteModelOrExit } from '../remote-model.js';
import { givenDiskBandwidth, planForView } from '../make-plan.js';
import { downloadProgress, jsonProgress } from '../download-progress.js';
import { summarizePlan } from '../../shared/discovery/plan-summary.js';
import type { PlanSummary } from '../../shared/discovery/types.js';
import type { MemoryPlan } from '../../shared/plan/plan-types.js';
import { flagValues, flagsNamed } from '../run-flags.js';

/** `ramforge pull --json` (docs/cli-json.md, "pull"). */
export interface PullResult {
  schemaVersion: 1;
  url: string;
  dir: string;
  /** Null when the server could not serve the header by ranges (no plan was made). */
  plan: PlanSummary | null;
  files: { url: string; path: string; bytes: number; sha256: string | null; verifiedAgainst: string | null; resumedFrom: number; skipped: boolean }[];
}

function planLines(p: MemoryPlan, ramSource: string): string {
  const q = p.quantities;
  const lines = [`Plan for RAM ${formatBytes(p.input.ramBytes)} (${ramSource}), ctx ${p.input.ctx}: ${p.verdict.toUpperCase()} — ${p.reason}`];
  if (p.verdict !== 'cannot-run') {
    const tok = q.predictedDecodeTokS.value === null ? '—' : `${q.predictedDecodeTokS.value.toFixed(2)} tok/s`;
    lines.push(`  RAM used ${formatBytes(q.ramUsedBytes.value)}, read per token ${formatBytes(q.bytesReadPerToken.value)}, predicted ${tok} (ramforge plan URL for the whole plan)`);
  }
  return lines.join('\n') + '\n';
}

const PULL_FLAGS = [
  { name: 'out', type: 'string', valueName: 'DIR', description: "folder to save into (default: RAMforge's models folder, which `ramforge models` and the app list)" },
  { name: 'retries', type: 'int', description: 'resume this many times after the connection drops', default: 3 },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'pull',
  summary: 'download a GGUF model (resumable, verified) after showing whether it fits',
  positionals: [{ name: 'url', description: 'an http(s) URL of a .gguf file, or of any shard of a split set (all shards are downloaded)', required: true }],
  flags: [
    ...PULL_FLAGS,
    { name: 'sha256', type: 'string', valueName: 'HEX', description: 'the sha256 the file must have (default: the one the server publishes, if any)' },
    // The plan before the download is made for --ram (default: this machine's RAM).
    ...flagsNamed('ram', 'disk-bw'),
    { name: 'force', type: 'boolean', description: 'download even when the plan says the model cannot run under the budget' },
    { name: 'json', type: 'boolean', description: 'print the result as JSON, and progress as JSON lines on stderr (docs/cli-json.md, "pull")' },
  ],
  details: [
    'Files are written to NAME.part and renamed when complete; an interrupted pull resumes from the .part',
    '(If-Range guards against a file that changed on the server). Checksums, first found first: --sha256, a',
    'NAME.sha256 file beside the URL, the X-Linked-Etag header (Hugging Face; a plain ETag is opaque, never used). A wrong',
    'checksum removes the download. Progress (rate, time left) goes to stderr.',
    'Exit codes: 0 downloaded (or already complete); 1 network failure, interruption, wrong checksum, no space,',
    'a plan that cannot run (without --force); 2 bad usage, malformed header, nothing at the URL.',
  ].join('\n'),
  async run(args) {
    const url = args.positionals[0] as string;
    if (!isModelUrl(url)) throw new UsageError(`'pull' takes an http(s) URL, got '${url}'`);
    try {
      parseModelUrl(url);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const urls = splitSetUrls(url);
    const json = args.flags.json === true;
    const say = (text: string): void => {
      if (!json) process.stdout.write(text);
    };
    const result: PullResult = { schemaVersion: 1, url, dir: '', plan: null, files: [] };
    const given = args.flags.sha256 as string | undefined;
    if (given !== undefined && !isSha256(given.toLowerCase())) throw new UsageError(`--sha256 must be 64 hex digits, got '${given}'`);
    if (given !== undefined && urls.length > 1) throw new UsageError(`--sha256 names one file, but ${url} is a ${urls.length}-file split set`);
    const outDir = resolve(typedFlags(args.flags, PULL_FLAGS).out ?? defaultDownloadDir());
    result.dir = outDir;
    await mkdir(outDir, { recursive: true });
    const names = urls.map((u) => {
      try {
        return downloadFileName(u);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    });

    // The plan first: only the headers are read.
    const m = await openRemoteModelOrExit(url).catch((e: unknown) => {
      // A server without range support can still be downloaded from, without a plan or resume.
      if (e instanceof ExitError && /does not support range requests/.test(e.message)) {
        process.stderr.write(`ramforge pull: no plan before the download: ${e.message.split('. ')[0]}; it will not be resumable\n`);
        return null;
      }
      throw e;
    });
    const sizes: (number | null)[] = m ? m.view.shards.map((s) => s.fileBytes) : urls.map(() => null);
    if (m) {
      const ram = flagValues(args.flags).ram ?? totalmem();
      const disk = givenDiskBandwidth(args.flags) ?? downloadDiskBandwidth(outDir);
      // The downloaded file is assumed to sit on a file system that takes direct I/O (see `plan`).
      const { plan } = planForView(m.view, { ram }, { disk, readaheadBytes: 0 });
      result.plan = summarizePlan(plan);
      say(planLines(plan, args.flags.ram !== undefined ? '--ram' : "this machine's RAM"));
      if (plan.verdict === 'cannot-run' && !args.flags.force) {
        throw new ExitError(`not downloading: the model cannot run under ${formatBytes(ram)} (the smallest cap that runs is ${formatBytes(plan.quantities.minimumRamBytes.value)}); pass --force to download anyway`, EXIT.failure);
      }
      const kept = await Promise.all(names.map((n) => stat(join(outDir, `${n}.part`)).then((st) => st.size, () => 0)));
      const need = m.view.fileBytes - kept.reduce((a, b) => a + b, 0);
      const free = await statfsFreeBytes(outDir);
      if (free < need) throw new ExitError(`not enough free space in ${outDir}: the model needs ${formatBytes(need)} more, ${formatBytes(free)} is free`, EXIT.failure);
    }

    for (const [i, u] of urls.entries()) {
      const name = names[i] as string;
      const dest = join(outDir, name);
      const existing = await stat(dest).then((s) => s.size, () => null);
      if (existing !== null) {
        if (sizes[i] !== null && existing === sizes[i]) {
          say(`${dest}: already complete (${formatBytes(existing)}), skipped\n`);
          result.files.push({ url: u, path: dest, bytes: existing, sha256: null, verifiedAgainst: null, resumedFrom: 0, skipped: true });
          continue;
        }
        throw new ExitError(`${dest} already exists${sizes[i] !== null ? ` with a different size (${existing} bytes, the server has ${sizes[i]})` : ''}; remove it or choose --out`, EXIT.failure);
      }
      let expected: ExpectedSha | null = given ? { sha256: given.toLowerCase(), from: '--sha256' } : null;
      expected ??= (await siblingSha256(u)).sha;
      const bar = json ? jsonProgress(process.stderr, name) : downloadProgress(process.stderr, name);
      try {
        const r = await download({ url: u, dest, sha256: expected, retries: typedFlags(args.flags, PULL_FLAGS).retries, onProgress: (p) => bar.update(p) });
        bar.done();
        const check = r.verifiedAgainst ? `sha256 ${r.sha256} verified against ${r.verifiedAgainst.from}` : `sha256 ${r.sha256} (not verified: the server publishes no checksum)`;
        const resumed = r.resumedFrom > 0 ? `, resumed at ${formatBytes(r.resumedFrom)}` : '';
        say(`Saved ${dest} (${formatBytes(r.bytes)}${resumed}); ${check}\n`);
        result.files.push({ url: u, path: dest, bytes: r.bytes, sha256: r.sha256, verifiedAgainst: r.verifiedAgainst?.from ?? null, resumedFrom: r.resumedFrom, skipped: false });
      } catch (e) {
        bar.done();
        if (e instanceof DownloadError) throw new ExitError(e.message, EXIT.failure);
        if (e instanceof HttpError) throw e.kind === 'not-found' ? new UsageError(e.message) : new ExitError(e.message, EXIT.failure);
        throw e;
      }
    }
    if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return EXIT.ok;
  },
};
