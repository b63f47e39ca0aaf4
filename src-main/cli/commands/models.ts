// `ramforge models [--json] [--dir DIR ...] [--ram SIZE]`: the GGUF models already on this
// machine — Ollama's store, LM Studio, the Hugging Face cache, llama.cpp's cache, RAMforge's own
// folder, Downloads, added folders — each with its source and its plan verdict for the budget.
import { homedir, totalmem } from 'node:os';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { typedFlags, type CommandSpec, type FlagSpec } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { discoverModels } from '../../node/discovery/discover.js';
import { cachedDiskBandwidth, type DiskBandwidth } from '../../node/disk-bw.js';
import { directIoWorks } from '../../node/direct-io.js';
import { DEFAULT_READAHEAD_BYTES } from '../../shared/plan/stream-select.js';
import { summarizePlan } from '../../shared/discovery/plan-summary.js';
import { formatModels } from '../../shared/discovery/format.js';
import type { DiscoveryReport } from '../../shared/discovery/types.js';
import { givenDiskBandwidth, planForView } from '../make-plan.js';
import { flagValues, flagsNamed } from '../run-flags.js';

/** Read speed assumed for a device nothing was measured on (only tok/s depends on it, not the verdict). */
const ASSUMED_DISK: DiskBandwidth = { bytesPerS: 1e9, source: 'assumed 1 GB/s (nothing measured on this device yet)' };

const MODELS_FLAGS = [
  { name: 'dir', type: 'string', repeatable: true, valueName: 'DIR', description: 'also search this folder (recursively); may be given more than once' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'models',
  summary: 'list the GGUF models already on this machine (Ollama, LM Studio, Hugging Face cache, llama.cpp cache, added folders) with their plan verdict',
  positionals: [],
  flags: [
    ...MODELS_FLAGS,
    // Each model is planned for --ram (default: this machine's RAM).
    ...flagsNamed('ram', 'disk-bw'),
    { name: 'json', type: 'boolean', description: 'print the list as JSON (docs/cli-json.md, "models")' },
  ],
  details: [
    'Searched: $OLLAMA_MODELS or ~/.ollama/models (and /usr/share/ollama/.ollama/models), ~/.lmstudio/models,',
    '~/.cache/lm-studio/models, $HF_HUB_CACHE or $HF_HOME/hub or ~/.cache/huggingface/hub, $LLAMA_CACHE or',
    "~/.cache/llama.cpp, RAMforge's models folder (where `ramforge pull` saves), the top of ~/Downloads, and every --dir.",
    'Only headers are read (bounded, the hardened reader); nothing is copied, moved or written.',
    'Adapters (LoRA), projectors (mmproj), vocab-only, embedding and unknown-architecture files are listed with',
    'their kind and not offered as chat models; files that cannot be read are listed with the reason.',
    'Exit codes: 0 ok (whatever was found); 2 bad flags or a --dir that is not a folder.',
  ].join('\n'),
  async run(args) {
    const dirs = (typedFlags(args.flags, MODELS_FLAGS).dir ?? []).map((d) => resolve(d));
    for (const d of dirs) {
      const ok = await stat(d).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!ok) throw new UsageError(`--dir ${d}: not a folder`);
    }
    const given = flagValues(args.flags).ram;
    const ram = given ?? totalmem();
    const disk = givenDiskBandwidth(args.flags);
    const report: DiscoveryReport = {
      schemaVersion: 1,
      budget: {
        ramBytes: ram,
        ramSource: given !== undefined ? '--ram' : "this machine's RAM",
        diskBandwidthSource: disk ? '--disk-bw' : `each device's cached measurement, else ${ASSUMED_DISK.source}`,
      },
      ...(await discoverModels({ home: homedir(), env: process.env, dirs }, (m) => {
        const files = m.shards.map((s) => s.path);
        const bw = disk ?? cachedDiskBandwidth(files[0] as string) ?? ASSUMED_DISK;
        const readahead = directIoWorks(files) ? 0 : DEFAULT_READAHEAD_BYTES;
        return summarizePlan(planForView(m.view, { ram }, { disk: bw, readaheadBytes: readahead }).plan);
      })),
    };
    process.stdout.write(args.flags.json ? JSON.stringify(report, null, 2) + '\n' : formatModels(report));
    return EXIT.ok;
  },
};
