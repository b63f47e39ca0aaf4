// `ramforge plan MODEL --ram SIZE ...`: the memory plan a run will follow — where each layer
// lives, what it costs per token, and whether it can run at all under the cap.
import { measurePlannedCompute } from '../shadow-compute.js';
import { expertReadChunk } from '../../shared/disk-probe-request.js';
import { computeLookup } from '../../node/compute-cache.js';
import type { CommandSpec } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { formatPlan } from '../../shared/plan/plan-format.js';
import { diskBandwidthFor } from '../../node/disk-bw.js';
import { measureInWorker } from '../disk-probe.js';
import { openModelOrExit2 } from './inspect.js';
import { shapeNote } from '../run-config.js';
import { directIoWorks } from '../../node/direct-io.js';
import { DEFAULT_READAHEAD_BYTES } from '../../shared/plan/stream-select.js';
import { givenDiskBandwidth, planForView } from '../make-plan.js';
import { isModelUrl } from '../../shared/remote/model-url.js';
import { downloadDiskBandwidth, openRemoteModelOrExit } from '../remote-model.js';
import { defaultDownloadDir } from '../../node/download-dir.js';
import { flagValues, flagsNamed } from '../run-flags.js';
import { rpcNodesFromFlags } from '../rpc-nodes.js';
import { openDraftInput } from '../draft-input.js';
import { measuredRoutingOf, readAheadOf } from '../../node/load-machine.js';
import { draftPlanInput } from '../../shared/draft/draft-budget.js';
import { probeGpus } from '../../node/gpu-devices.js';
import { serveParallel } from './serve-api-flags.js';
import { resolve } from 'node:path';
import { checkRoutingSettings } from '../../node/route-trace-file.js';

export const command: CommandSpec = {
  name: 'plan',
  summary: 'plan where every layer lives under a RAM (and VRAM) budget, and predict bytes/token and tok/s',
  positionals: [{ name: 'model', description: 'a .gguf file, any shard of a split set, a directory holding one model, or an http(s) URL (only its header is read)', required: true }],
  flags: [
    // As every command that plans declares them (run-flags.ts): the app plans a load with the run's own settings.
    ...flagsNamed('ram', 'vram', 'gpu', 'ctx', 'prefetch-depth', 'batch', 'threads', 'parallel', 'kv-bytes', 'disk-bw', 'draft', 'draft-max', 'draft-min', 'rpc', 'routing-trace'),
    { name: 'json', type: 'boolean', description: 'print the plan as JSON (docs/cli-json.md, "plan")' },
    { name: 'measure-compute', type: 'boolean', description: "first measure the stream schedule's compute on the model's shadow (its header, its weights read as zeros: 16 tokens, nothing read from storage), as bench does; cached per file and schedule, later plans use it" },
    { name: 'serve', type: 'boolean', description: 'plan as `serve --api` loads the model: its /v1/embeddings context budgeted and, without --parallel, the sequences serve chooses' },
  ],
  details:
    'Verdicts: fits (all layers resident), out-of-core (pinned prefix + streamed rest, with bytes read per token), cannot-run (with the smallest cap that would run).\n' +
    'A URL is planned from its header alone, read with HTTP range requests (split sets by their -00001-of-0000N.gguf names); nothing else is downloaded.\n' +
    'Exit codes: 0 whenever a plan was made, whatever the verdict (read "verdict" in --json); 2 bad flags, sizes or model file (or nothing at the URL); 1 network failures and servers without range support.',
  async run(args) {
    const input = args.positionals[0] as string;
    const f = flagValues(args.flags);
    if (f.ram === undefined) throw new UsageError("'plan' needs --ram SIZE (e.g. --ram 8G)");
    const remote = isModelUrl(input);
    const m = remote ? await openRemoteModelOrExit(input) : await openModelOrExit2(input);
    const disk =
      givenDiskBandwidth(args.flags) ??
      (remote ? downloadDiskBandwidth(defaultDownloadDir()) : await diskBandwidthFor(m.shards[0]?.path as string, measureInWorker));
    // A URL's model will be read from local storage once downloaded, which is assumed to take
    // direct I/O (most file systems do): no kernel read-ahead is budgeted for its streamed units.
    const readaheadBytes = remote || directIoWorks(m.shards.map((x) => x.path)) ? 0 : DEFAULT_READAHEAD_BYTES;
    // With --draft the plan budgets the draft beside the model, as `run --draft` does.
    const draft = await openDraftInput(m, args.flags);
    const max = f['draft-max'];
    if (f['draft-min'] > max) throw new UsageError(`--draft-min must be at most --draft-max (${max})`);
    // What earlier runs of this file measured of its routing (a mixture of experts), if anything.
    // A routing trace to replay decides the expert cache's prediction (checked against the model's shape).
    const tracePath = f['routing-trace'];
    const routeTrace = tracePath === undefined ? null : checkRoutingSettings(m.view, { routingTrace: resolve(tracePath), routingTraceOut: null });
    // A mixture of experts reads its misses an expert's slice a request: the device's rate at that size too (measured once, cached).
    const chunk = expertReadChunk(m.view);
    const atChunk = remote || chunk === null || givenDiskBandwidth(args.flags) ? null : await diskBandwidthFor(m.shards[0]?.path as string, measureInWorker, chunk);
    const expertRead = atChunk?.source.startsWith('measured') ? atChunk : null;
    const context = { disk, readaheadBytes, routeTrace, expertRead, routing: remote ? null : measuredRoutingOf(m.shards[0]?.path as string), readAheadShare: remote ? null : readAheadOf(m.shards[0]?.path as string), ...(remote ? {} : { compute: computeLookup(m.shards[0]?.path as string) }), gpus: f.gpu === 'none' ? null : probeGpus(), rpcNodes: await rpcNodesFromFlags(args.flags, Boolean(args.flags.json)) };
    const withDraft = draft ? { ...context, draft: (ctx: number) => draftPlanInput(m, { path: draft.shards[0]!.path, shards: draft.shards, view: draft.view }, { ctx, max }) } : context;
    // As serve --api loads it: the sequences it would choose (unless given), the embeddings context.
    const serving = args.flags.serve === true;
    const flags = serving && args.flags.parallel === undefined ? { ...args.flags, parallel: serveParallel(m.view, args.flags, draft ? draft.shards[0]!.path : null).parallel } : args.flags;
    if (args.flags['measure-compute'] === true) {
      if (remote) throw new UsageError('--measure-compute runs the model: download it first (ramforge pull)');
      await measurePlannedCompute(m, flags);
    }
    const { plan, shape } = planForView(m.view, flags, { ...withDraft, serving });
    if (!args.flags.json) process.stderr.write(shapeNote(shape));
    process.stdout.write(args.flags.json ? JSON.stringify(plan, null, 2) + '\n' : formatPlan(plan));
    return EXIT.ok;
  },
};
