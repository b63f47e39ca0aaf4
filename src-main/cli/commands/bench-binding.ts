// `ramforge bench-binding MODEL`: our decode speed against llama.cpp's own llama-bench built
// from the same pinned source (built on demand), same model and thread count, alternating runs.
import { execFileSync } from 'node:child_process';
import { typedFlags, type CommandSpec, type ParsedArgs, type FlagSpec } from '../args.js';
import { ExitError, UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { runOnce } from '../../worker/run-once.js';
import { llamaTool } from '../../node/llama-tools.js';
import { percentile } from '../../shared/stats.js';
import { GREEDY, LIMITS } from '../../shared/settings/run-settings.js';

function llamaBench(): string {
  return llamaTool('llama-bench', (line) => process.stderr.write(`bench-binding: ${line}\n`));
}

const BINDING_FLAGS = [
  { name: 'tokens', type: 'int', default: 64, range: LIMITS.maxTokens, description: 'tokens decoded per run' },
  { name: 'threads', short: 't', type: 'int', default: 2, range: LIMITS.threads, description: 'CPU threads for both' },
  { name: 'reps', type: 'int', default: 5, range: LIMITS.reps, description: 'runs of each, alternating; medians are compared' },
  { name: 'json', type: 'boolean', description: 'print JSON' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'bench-binding',
  summary: "Compare `ramforge run` decode tok/s with llama.cpp's llama-bench on the same model and threads.",
  positionals: [{ name: 'model', description: 'GGUF file', required: true }],
  flags: BINDING_FLAGS,
  async run(args: ParsedArgs): Promise<number> {
    const f = typedFlags(args.flags, BINDING_FLAGS);
    const modelPath = args.positionals[0] as string;
    const opened = await openModelInput(modelPath);
    const threads = f.threads;
    const tokens = f.tokens;
    const reps = f.reps;
    if (reps < 1 || tokens < 2) throw new UsageError('--reps ≥ 1 and --tokens ≥ 2');
    const bin = llamaBench();
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < reps; i++) {
      // -ngl 0: our run is CPU-only here, and llama-bench would offload every layer to a GPU a
      // Vulkan build finds (its default is all of them).
      const out = execFileSync(bin, ['-m', modelPath, '-p', '0', '-n', String(tokens), '-t', String(threads), '-ngl', '0', '-r', '1', '-o', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      const rows = JSON.parse(out) as { avg_ts: number }[];
      theirs.push(rows[0]?.avg_ts ?? NaN);
      const r = await runOnce({
        files: opened.shards.map((s) => s.path),
        load: { modelPath, threads, ctx: 512, policy: 'off' },
        generate: { prompt: 'Once upon a time', maxTokens: tokens, sampling: GREEDY },
      });
      if (!r.generation) throw new ExitError(`our run failed: ${r.error?.message ?? 'unknown'}`, 1);
      ours.push(r.generation.timings.decodeTokS);
    }
    const a = percentile(ours, 50) as number;
    const b = percentile(theirs, 50) as number;
    const ratio = a / b;
    const result = { model: modelPath, threads, tokens, reps, ramforge_decode_tok_s: ours, llama_bench_tg_tok_s: theirs, median_ratio: ratio, no_cost: ratio >= 0.95 };
    if (f['json']) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else {
      process.stdout.write(
        [
          `model          ${modelPath} (${threads} threads, ${tokens} tokens, ${reps} alternating runs each)`,
          `ramforge run   median ${a.toFixed(2)} tok/s   [${ours.map((v) => v.toFixed(2)).join(', ')}]`,
          `llama-bench    median ${b.toFixed(2)} tok/s   [${theirs.map((v) => v.toFixed(2)).join(', ')}]`,
          `ratio          ${ratio.toFixed(3)} (${ratio >= 1.05 ? 'ours faster' : ratio >= 0.95 ? 'within 5%' : 'ours slower by more than 5%'})`,
          '',
        ].join('\n'),
      );
    }
    return 0;
  },
};
