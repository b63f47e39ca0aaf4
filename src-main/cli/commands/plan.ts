// `ramforge plan MODEL --ram SIZE ...`: the memory plan a run will follow — where each layer
// lives, what it costs per token, and whether it can run at all under the cap.
import type { CommandSpec } from '../args.js';
import { EXIT, UsageError } from '../errors.js';
import { parseSize } from '../../shared/size.js';
import { planMemory, PlanInputError } from '../../shared/plan/plan.js';
import { formatPlan } from '../../shared/plan/plan-format.js';
import { diskBandwidthFor, parseBandwidth } from '../../node/disk-bw.js';
import { measureInWorker } from '../disk-probe.js';
import { openModelOrExit2 } from './inspect.js';
import { DEFAULT_PREFETCH_DEPTH, SettingsError, validateRunSettings } from '../../shared/settings/run-settings.js';
import { chooseRunShape } from '../../shared/settings/run-shape.js';
import { physicalCores } from '../../node/machine.js';
import { shapeNote } from '../run-config.js';
import { directIoWorks } from '../../node/direct-io.js';
import { DEFAULT_READAHEAD_BYTES } from '../../shared/plan/stream-select.js';

export const command: CommandSpec = {
  name: 'plan',
  summary: 'plan where every layer lives under a RAM (and VRAM) budget, and predict bytes/token and tok/s',
  positionals: [{ name: 'model', description: 'a .gguf file, any shard of a split set, or a directory holding one model', required: true }],
  flags: [
    { name: 'ram', type: 'size', description: 'RAM budget (8G, 8GiB, 8192M, 512MiB, 1.5G; KB/MB/GB are decimal)', valueName: 'SIZE' },
    { name: 'vram', type: 'size', description: 'VRAM budget; the last layers go there', valueName: 'SIZE' },
    { name: 'ctx', short: 'c', type: 'int', description: "context length (default: the model's, at most 4096, shrunk to fit the cap; at least 2048 where the cap allows)" },
    { name: 'prefetch-depth', type: 'int', description: 'streamed units read ahead of the one in use', default: DEFAULT_PREFETCH_DEPTH },
    { name: 'batch', short: 'b', type: 'int', description: 'micro-batch the run will use (sizes the compute buffer; default: chosen for the cap)' },
    { name: 'threads', short: 't', type: 'int', description: "compute threads (default: the machine's physical cores)" },
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
      const d = await diskBandwidthFor(m.shards[0]?.path as string, measureInWorker);
      diskBw = d.bytesPerS;
      diskSource = d.source;
    }
    try {
      const settings = validateRunSettings({
        ramBytes: ram,
        vramBytes: (args.flags.vram as number | undefined) ?? null,
        ctx: (args.flags.ctx as number | undefined) ?? null,
        batch: (args.flags.batch as number | undefined) ?? null,
        threads: (args.flags.threads as number | undefined) ?? null,
        prefetchDepth: args.flags['prefetch-depth'] as number,
      });
      const shape = chooseRunShape({ view: m.view, settings, physicalCores: physicalCores() });
      const plan = planMemory(m.view, {
        ramBytes: ram,
        vramBytes: args.flags.vram as number | undefined,
        ctx: shape.ctx,
        prefetchDepth: settings.prefetchDepth,
        kvTypeBytes: args.flags['kv-bytes'] as number,
        ubatch: Math.min(shape.batch, shape.ctx),
        threads: shape.threads,
        diskBandwidthBytesPerS: diskBw,
        diskBandwidthSource: diskSource,
        readaheadBytes: directIoWorks(m.shards.map((x) => x.path)) ? 0 : DEFAULT_READAHEAD_BYTES,
      });
      if (!args.flags.json) process.stderr.write(shapeNote(shape));
      process.stdout.write(args.flags.json ? JSON.stringify(plan, null, 2) + '\n' : formatPlan(plan));
      return EXIT.ok;
    } catch (e) {
      if (e instanceof PlanInputError || e instanceof SettingsError) throw new UsageError(e.message);
      throw e;
    }
  },
};
