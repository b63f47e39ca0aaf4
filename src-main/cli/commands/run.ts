// `ramforge run MODEL --prompt P`: text to stdout as it is generated, diagnostics to stderr.
import { typedFlags, type CommandSpec, type FlagSpec, type ParsedArgs } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { openDraftInput } from '../draft-input.js';
import { lostNodeLines, rpcNodesFromFlags } from '../rpc-nodes.js';
import { LOAD_FLAGS, MEMORY_FLAGS, SAMPLING_FLAGS, flagValues } from '../run-flags.js';
import { capFrom, loadParams, parsePolicy, prepareRun, samplingParams, shapeNote } from '../run-config.js';
import { runOnce } from '../../worker/run-once.js';
import { runExitCode, runFailureMessage, type RunOnceResult } from '../../shared/run-result.js';
import { progressBar } from '../../synth/progress-bar.js';
import { formatMemoryReport } from '../../supervisor/index.js';
import { draftSummary, inspectLayerText, profileText, tokensJson } from '../run-output.js';
import { buildRunReport } from '../../node/report-file.js';
import { recordRunRouting } from '../../node/routing-cache.js';
import { checkOutputPath, writeOutputs } from '../output-files.js';
import { formatResidencyReport } from '../../shared/report/residency-text.js';
import { gpuMemoryLine, gpuPlanLine } from '../gpu-output.js';
import type { ChatMessage } from '../../shared/worker-protocol.js';

/** run's own flags (the shared ones come from the table in run-flags.ts). */
const RUN_INPUT_FLAGS = [
  { name: 'prompt', short: 'p', type: 'string', description: 'the prompt (or the user message with --chat)' },
  { name: 'chat', type: 'boolean', description: "render the prompt with the model's chat template" },
  { name: 'system', type: 'string', description: 'system message for --chat' },
] as const satisfies readonly FlagSpec[];
const RUN_OUTPUT_FLAGS = [
  { name: 'tokens-json', type: 'string', valueName: 'PATH', description: 'write prompt and generated token ids plus timings as JSON' },
  { name: 'profile', type: 'boolean', description: 'print load time, TTFT, prompt and decode tok/s, per-token latency percentiles' },
  { name: 'residency-report', type: 'boolean', description: 'print per-layer residency, engine counters and the ledger on stderr' },
  { name: 'report-json', type: 'string', valueName: 'PATH', description: 'write the run report (schema_version 1, resources/report.schema.json)' },
  { name: 'quiet', short: 'q', type: 'boolean', description: 'no progress bar or notes on stderr' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'run',
  summary: 'Generate text from a GGUF model. MODEL is a file, a shard of a split set, or a directory holding one model.',
  positionals: [{ name: 'model', description: 'GGUF file, split shard, or directory', required: true }],
  flags: [...RUN_INPUT_FLAGS, ...SAMPLING_FLAGS, ...LOAD_FLAGS, ...MEMORY_FLAGS, ...RUN_OUTPUT_FLAGS],
  details: [
    'Examples:',
    '  ramforge run model.gguf -p "Once upon a time" -n 64 --temperature 0',
    '  ramforge run model.gguf --chat --system "Be brief." -p "What is a GGUF file?"',
    '  ramforge run big.gguf -p "Hi" --ram 4G --enforce-ram --memory-report --report-json run.json',
  ].join('\n'),
  async run(args: ParsedArgs): Promise<number> {
    const f = args.flags;
    const own = typedFlags(f, [...RUN_INPUT_FLAGS, ...RUN_OUTPUT_FLAGS]);
    const shared = flagValues(f);
    const modelPath = args.positionals[0] as string;
    const prompt = own.prompt;
    if (prompt === undefined) throw new UsageError('--prompt is required');
    const maxTokens = shared['max-tokens'];
    parsePolicy(shared.policy);
    const cap = capFrom(f);
    for (const flag of ['tokens-json', 'report-json'] as const) {
      const path = own[flag];
      if (path !== undefined) await checkOutputPath(flag, path);
    }
    const quiet = own.quiet === true;
    const opened = await openModelInput(modelPath);
    const draft = await openDraftInput(opened, f);
    const prepared = prepareRun(opened, f, draft, await rpcNodesFromFlags(f, quiet));
    const plan = prepared.plan;
    const load = loadParams(modelPath, f, prepared);
    const policy = load.policy;
    if (!quiet) process.stderr.write(shapeNote(prepared.shape));
    const messages: ChatMessage[] | undefined = own.chat
      ? [...(own.system ? [{ role: 'system' as const, content: own.system }] : []), { role: 'user' as const, content: prompt }]
      : undefined;
    if (!quiet && plan) {
      process.stderr.write(`ramforge: plan for ${plan.input.ramBytes} bytes of RAM: ${plan.verdict}; policy ${policy}; ${plan.stream ? `${plan.stream.tensors.length} tensors streamed, the rest locked in RAM` : 'nothing streamed'}\n`);
    }
    if (!quiet && prepared.gpu) process.stderr.write(gpuPlanLine(prepared.gpu, load));
    let bar = quiet ? null : progressBar(process.stderr, 'loading');
    const shardBytes = opened.view.fileBytes;
    let first = true;
    const generate = { prompt, messages, maxTokens, sampling: samplingParams(f) };
    const result: RunOnceResult = await runOnce({
      files: opened.shards.map((s) => s.path),
      load,
      generate,
      cap,
      coldStart: Boolean(cap),
      ...(prepared.gpu ? { gpuEnv: prepared.gpu.env } : {}),
      onProgress: (fr) => bar?.update(Math.round(fr * shardBytes), shardBytes),
      onLoaded: (m) => {
        bar?.done();
        bar = null;
        // A long prompt takes a while before the first token: say where the run is.
        if (!quiet) process.stderr.write(`ramforge: loaded in ${(m.loadMs / 1000).toFixed(2)} s; decoding the prompt\n`);
        if (!quiet && prepared.gpu) process.stderr.write(gpuMemoryLine(prepared.gpu, load, m));
      },
      onToken: (t) => {
        if (first) {
          bar?.done();
          first = false;
        }
        process.stdout.write(t.text);
      },
    });
    if (first) bar?.done();
    if (result.generation) process.stdout.write('\n');

    if (own.profile && result.generation && result.model) process.stderr.write(profileText(result));
    else if (result.generation?.draft) process.stderr.write(`ramforge: draft: ${draftSummary(result.generation.draft, result.generation.tokens.length)}\n`);
    const report = buildRunReport({ modelPath, opened, plan, load, generate, result });
    // A later plan of this file predicts its expert cache from the routing this run saw.
    // Routing under --experts-used is not the model's own: it would replace the record (another shape).
    if (load.expertsUsed === undefined) await recordRunRouting(opened.shards[0]!.path, result.samples, result.model?.schedule?.expertCache);
    if (own['residency-report']) process.stderr.write(formatResidencyReport(report));
    const inspect = shared['inspect-layer'];
    if (inspect !== undefined) process.stderr.write(inspectLayerText(result, inspect));
    if (shared['memory-report'] && result.capped) process.stderr.write(formatMemoryReport(result.capped));
    // The text is already on stdout: an output that cannot be written costs only itself.
    const unwritten = await writeOutputs([
      ...(own['tokens-json'] && result.generation ? [{ flag: 'tokens-json', path: own['tokens-json'], value: () => tokensJson(result) }] : []),
      ...(own['report-json'] ? [{ flag: 'report-json', path: own['report-json'], value: () => report }] : []),
    ]);
    for (const line of unwritten) process.stderr.write(`ramforge run: ${line}\n`);
    const why = runFailureMessage(result);
    if (why) process.stderr.write(`ramforge run: ${why}\n`);
    if (why) for (const line of await lostNodeLines(load)) process.stderr.write(`ramforge run: ${line}\n`);
    return runExitCode(result) || (unwritten.length > 0 ? EXIT.failure : EXIT.ok);
  },
};
