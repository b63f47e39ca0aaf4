// `ramforge sweep MODEL --caps 40%,50%,…`: `bench` at each cap, written as a Markdown table, a
// JSON document and an SVG plot (decode tok/s and bytes read per token against the cap).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { typedFlags, type CommandSpec, type FlagSpec, type ParsedArgs } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { BelowMinimumError, parsePolicy } from '../run-config.js';
import { benchJson } from '../bench-output.js';
import { benchAtCap } from '../bench-runner.js';
import { LOAD_FLAGS, MEMORY_FLAGS } from '../run-flags.js';
import { detectCgroup } from '../../supervisor/index.js';
import { parseSize } from '../../shared/size.js';
import { sweepMarkdown, sweepSvg, type SweepPoint } from '../../shared/report/sweep.js';
import type { PolicyName } from '../../shared/worker-protocol.js';
import { LIMITS } from '../../shared/settings/run-settings.js';

/** sweep's own flags (the shared ones come from the table in run-flags.ts). */
const SWEEP_FLAGS = [
  { name: 'caps', type: 'list', default: '40%,50%,60%,75%,90%,100%,120%', valueName: 'LIST', description: 'caps: a percentage of the model file or a size (8G)' },
  { name: 'policies', type: 'list', default: 'off,stream', valueName: 'LIST', description: 'policies compared at each cap' },
  { name: 'tokens', type: 'int', default: 16, range: LIMITS.maxTokens, description: 'tokens to decode per run (greedy)' },
  { name: 'prompt', short: 'p', type: 'string', default: 'Once upon a time', description: 'the prompt' },
  { name: 'reps', type: 'int', default: 3, range: LIMITS.reps, description: 'repetitions per cap, policies alternating; the median run is kept' },
  { name: 'out', type: 'string', default: 'sweep', valueName: 'DIR', description: 'writes DIR/sweep.md, DIR/sweep.json and DIR/sweep.svg' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'sweep',
  summary: 'bench at a series of caps; writes a table (Markdown), the numbers (JSON) and a plot (SVG)',
  positionals: [{ name: 'model', description: 'GGUF file, split shard, or directory', required: true }],
  flags: [
    ...SWEEP_FLAGS,
    ...LOAD_FLAGS,
    ...MEMORY_FLAGS.filter((f) => !['policy', 'enforce-ram', 'ram'].includes(f.name)),
  ],
  details: 'Example:\n  ramforge sweep model-1b.gguf --caps 40%,50%,75%,100% --reps 3 --out docs/bench',
  async run(args: ParsedArgs): Promise<number> {
    const f = args.flags;
    const own = typedFlags(f, SWEEP_FLAGS);
    const modelPath = args.positionals[0] as string;
    const opened = await openModelInput(modelPath);
    const fileBytes = opened.view.fileBytes;
    const list = (v: unknown): string[] => (Array.isArray(v) ? v : String(v).split(',')).map((x) => String(x).trim()).filter((x) => x !== '');
    const caps = list(f['caps']).map((c) => {
      const m = /^(\d+(?:\.\d+)?)%$/.exec(c);
      const bytes = m ? Math.floor((Number(m[1]) / 100) * fileBytes) : parseSize(c);
      if (!(bytes > 0)) throw new UsageError(`--caps: '${c}' is neither a percentage nor a size`);
      return bytes;
    });
    const policies = list(f['policies']).map((p) => parsePolicy(p) as PolicyName);
    const detection = detectCgroup();
    if (!detection.usable) throw new UsageError(`sweep needs an enforced cap: ${detection.reason}`);
    const points: SweepPoint[] = [];
    const runs: unknown[] = [];
    for (const cap of caps) {
      process.stderr.write(`ramforge sweep: cap ${cap} bytes (${Math.round((100 * cap) / fileBytes)} % of the file)\n`);
      let result: Awaited<ReturnType<typeof benchAtCap>>;
      try {
        result = await benchAtCap({ modelPath, opened, flags: f, capBytes: cap, policies, prompt: own.prompt, tokens: own.tokens, reps: own.reps, enforced: true });
      } catch (e) {
        // A cap below the model's minimum working set is a point of the sweep, not its end:
        // the row says it cannot run and the next cap is measured.
        if (!(e instanceof BelowMinimumError)) throw e;
        process.stderr.write(`ramforge sweep: ${e.message}\n`);
        runs.push({ cap_bytes: cap, status: 'cannot-run', reason: e.message });
        points.push({ capBytes: cap, fraction: cap / fileBytes, cells: policies.map((policy) => ({ policy, status: 'cannot-run', decodeTokS: null, readPerToken: null, floorPerToken: null, limitHitsDecode: null, identicalTokens: null })) });
        continue;
      }
      const { prepared, rows } = result;
      const j = benchJson(modelPath, cap, true, rows, prepared.shape);
      runs.push(j);
      points.push({
        capBytes: cap,
        fraction: cap / fileBytes,
        cells: j.results.map((r) => ({
          policy: r.policy,
          status: r.status,
          decodeTokS: r.decode_tok_s,
          readPerToken: r.bytes_read_per_token,
          floorPerToken: r.floor_bytes_per_token,
          limitHitsDecode: r.limit_hits_decode,
          identicalTokens: r.identical_tokens,
        })),
      });
    }
    const out = own.out;
    mkdirSync(out, { recursive: true });
    const md = sweepMarkdown(points);
    writeFileSync(join(out, 'sweep.md'), md);
    writeFileSync(join(out, 'sweep.json'), JSON.stringify({ model: modelPath, file_bytes: fileBytes, caps: runs }, null, 2) + '\n');
    writeFileSync(join(out, 'sweep.svg'), sweepSvg(points, `${opened.view.name ?? modelPath}: ${policies.join(' vs ')} under an enforced cap`) + '\n');
    process.stdout.write(md);
    process.stderr.write(`ramforge sweep: wrote ${join(out, 'sweep.md')}, sweep.json and sweep.svg\n`);
    return points.every((p) => p.cells.every((c) => c.status === 'ok' || c.status === 'cannot-run')) ? 0 : 1;
  },
};
