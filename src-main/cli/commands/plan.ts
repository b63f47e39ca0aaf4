// `ramforge plan MODEL --ram SIZE ...`: the memory plan a run will follow — where each layer
// lives, what it costs per token, and whether it can run at all under the cap.
import type { CommandSpec } from '../args.js';
import { EXIT, UsageError } from '../errors.js';
import { parseSize } from '../../shared/size.js';
import { planMemory, PlanInputError } from '../../shared/plan/plan.js';
import { formatPlan } from '../../shared/plan/plan-format.js';
import { diskBandwidthFor, parseBandwidth } from '../../node/disk-bw.js';
import { openModelOrExit2 } from './inspect.js';

export const DEFAULT_CTX = 4096;

export const command: CommandSpec = {
  name: 'plan',
  summary: 'plan where every layer lives under a RAM (and VRAM) budget, and predict bytes/token and tok/s',
  positionals: [{ name: 'model', description: 'a .gguf file, any shard of a split set, or a directory holding one model', required: true }],
  flags: [
    { name: 'ram', type: 'size', description: 'RAM budget (8G, 8GiB, 8192M, 512MiB, 1.5G; KB/MB/GB are decimal)', valueName: 'SIZE' },
    { name: 'vram', type: 'size', description: 'VRAM budget; the last layers go there', valueName: 'SIZE' },
    { name: 'ctx', type: 'int', description: `context length (default: the model's, at most ${DEFAULT_CTX})` },
    { name: 'prefetch-depth', type: 'int', description: 'streamed layers read ahead', default: 3 },
    { name: 'batch', short: 'b', type: 'int', description: 'prompt batch size the run will use (sizes the compute buffer)', default: 512 },
    { name: 'kv-bytes', type: 'number', description: 'bytes per KV-cache element (f16 = 2, q8_0 ≈ 1.0625)', default: 2 },
    { name: 'disk-bw', type: 'string', description: 'storage read bandwidth, e.g. 2G or 500MB/s (default: measured once on this device and cached)', valueName: 'SIZE/s' },
    { name: 'json', type: 'boolean', description: 'print the plan as JSON (docs/cli-json.md, "plan")' },
  ],
  details:
    'Verdicts: fits (all layers resident), out-of-core (pinned prefix + streamed rest, with bytes read per token), cannot-run (with the smallest cap that would run).\n' +
    'Exit codes: 0 whenever a plan was made, whatever the verdict (read "verdict" in --json); 2 bad flags, sizes or model file.',
  async run(args) {
    const input = args.positionals[0] as string;
    const ram = args.flags.ram as number | undefined;
    if (ram === undefined) throw new UsageError("'plan' needs --ram SIZE (e.g. --ram 8G)");
    const m = await openModelOrExit2(input);
    let diskBw: number;
    let diskSource: string;
    const given = args.flags['disk-bw'] as string | undefined;
    if (given !== undefined) {
      try {
        diskBw = parseBandwidth(given, parseSize);
      } catch (e) {
        throw new UsageError(`--disk-bw: ${(e as Error).message}`);
      }
      diskSource = '--disk-bw';
    } else {
      const d = await diskBandwidthFor(m.shards[0]?.path as string);
      diskBw = d.bytesPerS;
      diskSource = d.source;
    }
    const ctx = (args.flags.ctx as number | undefined) ?? Math.min(m.view.contextLength ?? DEFAULT_CTX, DEFAULT_CTX);
    try {
      const plan = planMemory(m.view, {
        ramBytes: ram,
        vramBytes: args.flags.vram as number | undefined,
        ctx,
        prefetchDepth: args.flags['prefetch-depth'] as number,
        kvTypeBytes: args.flags['kv-bytes'] as number,
        ubatch: Math.min(args.flags['batch'] as number, 512, ctx),
        diskBandwidthBytesPerS: diskBw,
        diskBandwidthSource: diskSource,
      });
      process.stdout.write(args.flags.json ? JSON.stringify(plan, null, 2) + '\n' : formatPlan(plan));
      return EXIT.ok;
    } catch (e) {
      if (e instanceof PlanInputError) throw new UsageError(e.message);
      throw e;
    }
  },
};
