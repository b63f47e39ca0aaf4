// `ramforge sweep-caps`: seeded random cases (architecture, layers, widths, type, context,
// micro-batch, parallel sequences, a draft, `serve --api` with embeddings) each planned, then run
// under an enforced cap from far below the smallest cap the plan names to above full residency.
// Every case must complete with no OOM kill, or be refused before load naming a cap at which it
// then completes (shared/sweep/cap-verdict.ts). A violation prints the one command that
// reproduces it; the exit code is 1 when any case violated the promise.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { typedFlags, type CommandSpec, type FlagSpec } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { detectCgroup } from '../../supervisor/index.js';
import { capBytesFor, runSettingArgs, shapeName, sweepCase, synthArgs, type SweepCase } from '../../shared/sweep/cap-cases.js';
import { judgeCase, namedCap, summarize, type Attempt, type CaseRecord } from '../../shared/sweep/cap-verdict.js';
import { attempt, cli } from '../sweep-attempt.js';
import { formatBytes } from '../../shared/size.js';

const FLAGS = [
  { name: 'seed', type: 'int', range: { min: 0, max: 2 ** 31 - 1 }, description: 'the sweep\'s seed (default: from the clock, printed)' },
  { name: 'cases', type: 'int', default: 20, range: { min: 1, max: 100000 }, description: 'how many cases' },
  { name: 'case', type: 'int', range: { min: 0, max: 100000 }, description: 'run only case N of the seed (what a failure says to reproduce it)' },
  { name: 'timeout', type: 'int', default: 180, range: { min: 10, max: 3600 }, valueName: 'SECONDS', description: 'each run\'s --enforce-timeout (a case past it is a violation: a hang)' },
  { name: 'work', type: 'string', valueName: 'DIR', description: 'where the synthetic models are made and kept between sweeps (default: a folder in the system\'s temp dir)' },
  { name: 'json', type: 'string', valueName: 'PATH', description: 'write every case and the summary as JSON' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'sweep-caps',
  summary: 'hold the cap promise to random cases: each completes under its enforced cap, or is refused naming a cap that runs',
  positionals: [],
  flags: FLAGS,
  details:
    'Each case writes a synthetic model (synth), plans it (plan --json), runs it under an enforced cap\n' +
    '(run, or serve --api with concurrent requests) and, when refused, again at the cap the refusal names.\n' +
    'Exit codes: 0 no violation; 1 at least one; 2 bad flags or no memory cgroup to enforce a cap with.\n' +
    'Examples:\n  ramforge sweep-caps --cases 200 --json sweep.json\n  ramforge sweep-caps --seed 1234 --case 17',
  async run(args) {
    const f = typedFlags(args.flags, FLAGS);
    const cg = detectCgroup();
    if (!cg.usable) throw new UsageError(`sweep-caps needs an enforced cap: ${cg.reason}`);
    const seed = f.seed ?? Math.floor(Date.now() / 1000) % 2 ** 31;
    const indices = f.case !== undefined ? [f.case] : Array.from({ length: f.cases }, (_, i) => i);
    const work = f.work ?? join(tmpdir(), 'ramforge-sweep-caps');
    mkdirSync(join(work, 'models'), { recursive: true });
    process.stderr.write(`ramforge sweep-caps: seed ${seed}, ${indices.length} case${indices.length === 1 ? '' : 's'}, models in ${work}\n`);
    const records: CaseRecord[] = [];
    for (const i of indices) {
      const rec = await runCase(sweepCase(seed, i), work, f.timeout);
      records.push(rec);
      const v = rec.verdict;
      process.stderr.write(`  case ${i}: ${rec.shape}, ${rec.c.cap.kind} cap ${formatBytes(rec.capBytes)}${rec.c.serve ? ' (serve)' : ''}: ${v.outcome}${v.violation ? `\n    VIOLATION: ${v.violation}\n    reproduce: ${rec.reproduce}` : ''}\n`);
    }
    const summary = summarize(records);
    process.stdout.write(summaryText(seed, summary));
    if (f.json) writeFileSync(f.json, JSON.stringify({ seed, summary, cases: records }, null, 2) + '\n');
    return summary.violations > 0 ? EXIT.failure : EXIT.ok;
  },
};

function summaryText(seed: number, s: ReturnType<typeof summarize>): string {
  const rows = (o: Record<string, { cases: number; ran: number; refused: number; violations: number } | undefined>) =>
    Object.entries(o)
      .map(([k, v]) => `  ${k.padEnd(12)} ${String(v?.cases).padStart(4)} cases: ${v?.ran} ran, ${v?.refused} refused then ran, ${v?.violations} violations\n`)
      .join('');
  return `seed ${seed}: ${s.cases} cases, ${s.ran} ran, ${s.refusedThenRan} refused then ran at the cap named, ${s.violations} violations (${s.throughServe} through serve --api)\nby architecture:\n${rows(s.byArch)}by cap:\n${rows(s.byCapKind)}`;
}

/** The case's model (and draft), kept in the work folder under a name of its shape. */
async function models(c: SweepCase, work: string): Promise<{ model: string; draft: string | null }> {
  const key = synthArgs(c.model).join('_').replace(/[^A-Za-z0-9_.]/g, '');
  const model = join(work, 'models', `${key}.gguf`);
  if (!existsSync(model)) await mustSucceed(['synth', ...synthArgs(c.model), '--quiet', '--out', model]);
  if (!c.draft) return { model, draft: null };
  const draft = join(work, 'models', `${key}-draft.gguf`);
  if (!existsSync(draft)) await mustSucceed(['synth', '--draft-of', model, '--layers', '1', '--quiet', '--out', draft]);
  return { model, draft };
}

async function mustSucceed(args: string[]): Promise<string> {
  const r = await cli(args, 600_000);
  if (r.exit !== 0) throw new Error(`ramforge ${args.join(' ')} failed (exit ${r.exit}): ${r.stderr.slice(-500)}`);
  return r.stdout;
}

/** The plan at `capBytes` with the case's settings (`plan --json`). */
async function planAt(c: SweepCase, m: { model: string; draft: string | null }, capBytes: number) {
  // A served case is planned as serve loads it (its sequences, the embeddings context).
  const out = await mustSucceed(['plan', m.model, '--ram', String(capBytes), '--json', ...runSettingArgs(c), ...(m.draft ? ['--draft', m.draft] : []), ...(c.serve ? ['--serve'] : [])]);
  return JSON.parse(out) as { verdict: string; quantities: { minimumRamBytes: { value: number }; fullResidencyRamBytes: { value: number } } };
}

async function runCase(c: SweepCase, work: string, timeoutS: number): Promise<CaseRecord> {
  const m = await models(c, work);
  // The smallest cap the plan names, and full residency, at the shape it chooses under the
  // smallest caps (a larger cap may choose a larger context: the case's cap is only a place to
  // stand, the verdict comes from the run).
  const least = (await planAt(c, m, 1024 * 1024)).quantities;
  const minimum = least.minimumRamBytes.value;
  const full = least.fullResidencyRamBytes.value;
  const capBytes = capBytesFor(c, minimum, full);
  const planCannotRun = (await planAt(c, m, capBytes)).verdict === 'cannot-run';
  const spec = { model: m.model, draft: m.draft, settings: runSettingArgs(c), serve: c.serve ? { requests: 4, embeddings: c.embeddings } : null, timeoutS, workDir: work };
  const first = await attempt({ ...spec, capBytes });
  let second: Attempt | null = null;
  const named = first.exit === 2 ? namedCap(first.stderr) : null;
  if (named !== null && named > capBytes) second = await attempt({ ...spec, capBytes: named });
  return { c, shape: shapeName(c.model), capBytes, minimumBytes: minimum, fullBytes: full, verdict: judgeCase(planCannotRun, first, second), reproduce: `ramforge sweep-caps --seed ${c.seed} --case ${c.index}` };
}
