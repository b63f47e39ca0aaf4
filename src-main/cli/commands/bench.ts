// `ramforge bench MODEL --ram SIZE --policies off,stream`: each policy in its own worker, from
// a cold page cache for the model file, under the same cap, same prompt — side by side.
import { rpcNodesFromFlags } from '../rpc-nodes.js';
import { typedFlags, type CommandSpec, type FlagSpec, type ParsedArgs } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { openDraftInput } from '../draft-input.js';
import { parsePolicy, shapeNote } from '../run-config.js';
import { benchTable, benchJson } from '../bench-output.js';
import { benchAtCap } from '../bench-runner.js';
import { LOAD_FLAGS, MEMORY_FLAGS, flagValues } from '../run-flags.js';
import { detectCgroup } from '../../supervisor/index.js';
import { POLICIES, type PolicyName } from '../../shared/worker-protocol.js';
import { LIMITS } from '../../shared/settings/run-settings.js';
import { totalmem } from 'node:os';
import { measureDiskBandwidth } from '../../node/disk-bw.js';
import { measureInWorker } from '../disk-probe.js';
import { scheduleCompute } from '../shadow-compute.js';
import { expertReadChunk } from '../../shared/disk-probe-request.js';
import type { BenchDevice } from '../bench-output.js';

/**
 * The device's read rate on this model file, measured now: the runs' physical limit is set
 * against it (the rate of the same storage changes from day to day). Null for a file too small to
 * measure the device on, or a model split over several files.
 */
async function deviceNow(modelPath: string): Promise<BenchDevice | null> {
  const d = await measureDiskBandwidth(modelPath, measureInWorker);
  return d.source.startsWith('measured') ? d : null;
}

/** bench's own flags (the shared ones come from the table in run-flags.ts). */
const BENCH_FLAGS = [
  { name: 'policies', type: 'list', default: 'off,stream', valueName: 'LIST', description: `comma-separated, from ${POLICIES.join('|')}` },
  { name: 'tokens', type: 'int', default: 24, range: LIMITS.maxTokens, description: 'tokens to decode per run (greedy)' },
  { name: 'prompt', short: 'p', type: 'string', default: 'Once upon a time', description: 'the prompt' },
  { name: 'reps', type: 'int', default: 1, range: LIMITS.reps, description: 'repetitions, policies alternating; the table shows the run with the median decode tok/s' },
  { name: 'json', type: 'boolean', description: 'print one JSON object instead of the table' },
  { name: 'report-dir', type: 'string', valueName: 'DIR', description: 'also write each run’s full report (schema v1) into DIR' },
  { name: 'read-ahead-ab', type: 'boolean', description: 'a mixture of experts: each stream run also runs without expert read-ahead (stream-no-read-ahead), side by side' },
  { name: 'resident', type: 'boolean', description: "also run the model held in RAM without the cap (plain llama.cpp, the capped runs' shape): the compute a token costs, measured in the same command (default: when the file fits in half the machine's RAM; --no-resident skips it)" },
] as const satisfies readonly FlagSpec[];
const BENCH_CAP_FLAGS = [{ name: 'advisory', type: 'boolean', description: 'do not enforce the cap even where a memory cgroup is available' }] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'bench',
  summary: 'Compare residency policies side by side: each in its own worker, cold page cache, same cap and prompt.',
  positionals: [{ name: 'model', description: 'GGUF file, split shard, or directory', required: true }],
  flags: [
    ...BENCH_FLAGS,
    ...LOAD_FLAGS,
    ...MEMORY_FLAGS.filter((f) => f.name !== 'policy' && f.name !== 'enforce-ram'),
    ...BENCH_CAP_FLAGS,
  ],
  details: 'Examples:\n  ramforge bench model-1b.gguf --ram 400M --policies off,stream --tokens 24\n  ramforge bench model-1b.gguf --ram 400M --policies stream --rpc 127.0.0.1:50052,127.0.0.1:50053 --reps 3   # this machine alone vs with the nodes',
  async run(args: ParsedArgs): Promise<number> {
    const f = args.flags;
    const own = typedFlags(f, [...BENCH_FLAGS, ...BENCH_CAP_FLAGS]);
    const modelPath = args.positionals[0] as string;
    const ram = flagValues(f).ram;
    if (ram === undefined) throw new UsageError('--ram SIZE is required (the budget every policy runs under)');
    const raw = f['policies'];
    const policies = (Array.isArray(raw) ? raw : String(raw).split(',')).map((p) => parsePolicy(p) as PolicyName);
    if (policies.length === 0) throw new UsageError('--policies needs at least one policy');
    const tokens = own.tokens;
    const opened = await openModelInput(modelPath);
    const draft = await openDraftInput(opened, f);
    const detection = detectCgroup();
    const enforced = !f['advisory'] && detection.usable;
    if (!f['json']) {
      process.stderr.write(
        enforced
          ? `ramforge bench: cap ${ram} bytes enforced by a cgroup v${detection.usable ? detection.version : ''} memory group\n`
          : `ramforge bench: the cap is ADVISORY (${f['advisory'] ? '--advisory' : detection.usable ? '' : detection.reason}); numbers show the schedule, not a hard limit\n`,
      );
    }
    const reps = own.reps;
    const device = opened.shards.length === 1 ? await deviceNow(opened.shards[0]?.path as string) : null;
    // A mixture of experts reads its misses an expert's slice a request: the device's rate at that size, now, for the stream rows' plan.
    const chunk = expertReadChunk(opened.view);
    if (device && chunk !== null) await measureDiskBandwidth(opened.shards[0]!.path, measureInWorker, chunk);
    // The stream rows' plan predicts with this schedule's compute measured (as benchAtCap's stream runs are set).
    if (policies.includes('stream')) {
      const streamFlags = { ...f, ram, 'enforce-ram': enforced, 'experts-used': undefined, 'skip-cold-experts': undefined, draft: undefined, rpc: undefined, 'max-tokens': tokens };
      await scheduleCompute({ opened, flags: streamFlags, policies, prompt: own.prompt, tokens, fresh: true, log: (l) => void process.stderr.write(`ramforge bench: ${l}\n`) });
    }
    const { prepared, rows } = await benchAtCap({
      modelPath,
      opened,
      flags: f,
      capBytes: ram,
      policies,
      tokens,
      reps,
      enforced,
      readAheadAb: own['read-ahead-ab'] === true,
      resident: own.resident ?? opened.view.fileBytes <= totalmem() / 2,
      prompt: own.prompt,
      ...(own['report-dir'] !== undefined ? { reportDir: own['report-dir'] } : {}),
      draft,
      rpcNodes: await rpcNodesFromFlags(f, Boolean(f['json'])),
      onRun: (policy, rep) => {
        if (!f['json']) process.stderr.write(`ramforge bench: running ${policy}${reps > 1 ? ` (${rep + 1}/${reps})` : ''} …\n`);
      },
      onFailed: (policy, lines) => {
        for (const line of lines) process.stderr.write(`ramforge bench: ${policy}: ${line}\n`);
      },
    });
    if (!f['json']) process.stderr.write(shapeNote(prepared.shape));
    if (f['json']) process.stdout.write(JSON.stringify(benchJson(modelPath, ram, enforced, rows, prepared.shape, device), null, 2) + '\n');
    else process.stdout.write(benchTable(rows, device));
    return rows.every((r) => r.report.outcome.status === 'ok') ? 0 : 1;
  },
};
