// `ramforge prepare-load --settings JSON MODEL`: the load the app makes, prepared exactly as
// `ramforge run` prepares its own (shared/settings/prepare-load.ts): the shape chosen for what
// the settings leave open, the plan for the budget, the load parameters, and the files a cold
// start drops. The app runs it as a child process, so an untrusted header is parsed here and
// never in the app's main process. What cannot run (a bad file, settings out of bounds, a shape
// larger than the machine, an enforced cap below the minimum) is exit 2 with the reason, before
// any worker starts; so is a routing trace of another shape than the model's.
import { typedFlags, type CommandSpec, type FlagSpec } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { loadMachine, runDiskBandwidth } from '../../node/load-machine.js';
import { SettingsError, validateRunSettings, type RunSettings } from '../../shared/settings/run-settings.js';
import { BelowMinimumError, prepareLoad, type PreparedLoadJson } from '../../shared/settings/prepare-load.js';
import { PlanInputError } from '../../shared/plan/plan.js';
import { draftPlanInput } from '../../shared/draft/draft-budget.js';
import { openDraftModel } from '../draft-input.js';
import { formatBytes } from '../../shared/size.js';
import { askRpcNodes } from '../rpc-nodes.js';
import { checkRoutingSettings, type RoutingNames } from '../../node/route-trace-file.js';

/** The app's settings form's names for the routing fields (the CLI's messages name its flags). */
const APP_ROUTING_NAMES: RoutingNames = { trace: 'routing trace', out: 'routing output' };

const PREPARE_FLAGS = [
  { name: 'settings', type: 'string', valueName: 'JSON', description: 'run settings (src-main/shared/settings/run-settings.ts; fields left out keep their defaults)' },
  { name: 'json', type: 'boolean', description: 'print JSON (the only output; accepted for symmetry with plan)' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'prepare-load',
  summary: "prepare a load from run settings as the app does (the shape, the plan, the load parameters) and print it as JSON",
  positionals: [{ name: 'model', description: 'GGUF file, split shard, or directory', required: true }],
  flags: PREPARE_FLAGS,
  details:
    'Exit codes: 0 with the prepared load on stdout; 2 bad settings, a bad model, a context larger than the machine, or an enforced cap below the smallest one that runs (the message names it).',
  async run(args) {
    const modelPath = args.positionals[0] as string;
    const settings = parseSettings(typedFlags(args.flags, PREPARE_FLAGS).settings);
    const opened = await openModelInput(modelPath);
    const files = opened.shards.map((s) => s.path);
    // A trace of another shape is refused here, with the CLI's words, before any worker starts.
    const routeTrace = checkRoutingSettings(opened.view, settings, APP_ROUTING_NAMES);
    const draft = settings.draft === null ? null : await openDraftModel(opened, settings.draft, 'draft');
    const draftInput = draft ? (ctx: number) => draftPlanInput(opened, { path: draft.shards[0]!.path, shards: draft.shards, view: draft.view }, { ctx, max: settings.draftMax }) : undefined;
    // The RPC nodes the settings name are asked what they hold, as `run --rpc` asks them.
    const rpcNodes = await askRpcNodes(settings.rpc);
    let prepared: ReturnType<typeof prepareLoad>;
    try {
      prepared = prepareLoad({ modelPath, view: opened.view, settings, machine: { ...loadMachine(files, runDiskBandwidth(files[0] as string, null), undefined, { gpus: true, view: opened.view }), rpcNodes, routeTrace }, ...(draftInput ? { draft: draftInput } : {}), serving: true });
    } catch (e) {
      if (e instanceof BelowMinimumError) throw new UsageError(belowMinimumText(e));
      if (e instanceof SettingsError || e instanceof PlanInputError) throw new UsageError(e.message);
      throw e;
    }
    const out: PreparedLoadJson = { settings: prepared.settings, shape: prepared.shape, plan: prepared.plan, load: prepared.load, files, ...(prepared.gpu ? { gpu: prepared.gpu } : {}) };
    process.stdout.write(JSON.stringify(out) + '\n');
    return EXIT.ok;
  },
};

/** The refusal in the app's words: the settings it names are the app's (RAM budget, context, micro-batch). */
function belowMinimumText(e: BelowMinimumError): string {
  const small = e.smallShape ? ` Or set context ${e.smallShape.ctx} and micro-batch ${e.smallShape.batch}: then ${formatBytes(e.smallShape.minimumBytes)} is enough.` : '';
  return `${e.message} Give it a RAM budget of at least ${formatBytes(e.minimumBytes)}.${small}`;
}

function parseSettings(text: string | undefined): RunSettings {
  if (text === undefined) throw new UsageError('--settings JSON is required');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UsageError('--settings must be a JSON object');
  }
  try {
    return validateRunSettings(v);
  } catch (e) {
    if (e instanceof SettingsError) throw new UsageError(e.message);
    throw e;
  }
}
