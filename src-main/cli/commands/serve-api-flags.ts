// `ramforge serve`'s flags for the OpenAI-compatible API (--api and its options) and for the
// model it loads at start (--ram, --enforce-ram, --ctx, --parallel, --policy, --draft): checked
// into what serve starts with. --parallel left out under --api is chosen from the model's plan
// (one sequence with a draft).
import { totalmem } from 'node:os';
import { resolve } from 'node:path';
import { isLoopbackHost } from '../../api/http-access.js';
import { parseCorsOrigins } from '../../api/cors.js';
import { DEFAULT_MAX_QUEUE } from '../../api/gate.js';
import { DEFAULT_API_PORT } from '../../shared/api-server-state.js';
import { DEFAULT_RUN_SETTINGS, SettingsError, type RunSettings } from '../../shared/settings/run-settings.js';
import { settingsFromFlags } from '../flag-settings.js';
import { chooseParallel, type ParallelChoice } from '../../shared/settings/parallel-choice.js';
import type { ModelView } from '../../shared/gguf/model-view.js';
import { physicalCores } from '../../node/machine.js';
import { typedFlags, type FlagSpec, type FlagValue } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { openModelInput } from '../model-input.js';
import { openDraftInput } from '../draft-input.js';
import { FLAGS, flagValues, flagsNamed, type FlagName } from '../run-flags.js';
import { parseNameList, type ModelNames } from '../../shared/model-names.js';
import { API_DEFAULT_FIELDS, API_DEFAULT_NAMES, type ApiDefaultField, type ApiSamplingDefaults } from '../../shared/api-defaults.js';
import { askRpcNodes } from '../rpc-nodes.js';
import type { OpenedModel } from '../../node/gguf-file.js';
import { loadMachine, runDiskBandwidth } from '../../node/load-machine.js';
import { prepareLoad } from '../../shared/settings/prepare-load.js';
import { PlanInputError } from '../../shared/plan/plan.js';
import type { EmbedPooling } from '../../shared/generation-protocol.js';

/** The API's own flags. */
const API_FLAGS = [
  { name: 'api', type: 'boolean', description: 'also serve an OpenAI-compatible API (/v1/chat/completions, /v1/completions, /v1/models)' },
  { name: 'api-port', type: 'int', default: DEFAULT_API_PORT, range: { min: 0, max: 65535 }, description: "the API's port (llama-server's default; 0 = any free port)" },
  { name: 'api-host', type: 'string', valueName: 'ADDRESS', default: '127.0.0.1', description: 'address the API listens on; anything but loopback makes it reachable from other machines' },
  { name: 'api-key', type: 'string', valueName: 'KEY', description: 'require Authorization: Bearer KEY on every API request (default: $RAMFORGE_API_KEY, else none)' },
  { name: 'api-queue', type: 'int', default: DEFAULT_MAX_QUEUE, range: { min: 0, max: 10_000 }, description: 'API requests that may wait for a free sequence; more are refused with 429' },
  { name: 'cors', type: 'string', valueName: 'ORIGIN,...', description: "let pages of these origins call the API from a browser (* = any, never with credentials); none by default" },
  { name: 'metrics', type: 'boolean', description: "answer GET /metrics (Prometheus text, llama-server's names); off by default, as in llama-server" },
  { name: 'slots', type: 'boolean', default: true, description: "answer GET /slots (llama-server's: each slot's context and whether a request runs in it); --no-slots: a 501" },
  { name: 'pooling', type: 'string', valueName: 'mean|none', description: "how embeddings pool a text's hidden states (llama-server's --pooling): mean (the default), or none: POST /embeddings gives a vector per token, and the OpenAI and Ollama embedding routes answer 400" },
  { name: 'alias', type: 'string', valueName: 'NAME,...', description: "names the API serves the model under (llama-server's --alias): /v1/models lists the first in sorted order, requests may use any (default: the file's name)" },
  { name: 'tags', type: 'string', valueName: 'TAG,...', description: "labels /v1/models lists beside the model (llama-server's --tags)" },
  { name: 'ui', type: 'boolean', default: true, description: '--no-ui: serve the API only, not the browser UI (needs --api)' },
] as const satisfies readonly FlagSpec[];

/**
 * Server-wide sampling defaults (llama-server's --temp, --seed, --top-k, --top-p, --min-p,
 * --repeat-penalty, --n-predict): run's flags under the same names and spellings, without run's
 * defaults, since a field no one set falls to each API's own default (OpenAI's temperature 1…).
 */
const DEFAULT_FLAGS = Object.entries(API_DEFAULT_NAMES).map(([field, flag]) => ({ flag: flag as FlagName, field: field as ApiDefaultField }));

const SAMPLING_DEFAULT_FLAGS: FlagSpec[] = DEFAULT_FLAGS.map(({ flag, field }) => {
  const { default: _runs, ...spec }: FlagSpec = FLAGS[flag];
  return { ...spec, range: API_DEFAULT_FIELDS[field].limit, description: `${spec.description}: the default of API requests that do not set it (else each API's own)` };
});

export const SERVE_API_FLAGS: FlagSpec[] = [
  ...API_FLAGS,
  ...SAMPLING_DEFAULT_FLAGS,
  // As `run` declares them (run-flags.ts); a draft serves one sequence, so the API then decodes one request at a time.
  ...flagsNamed('parallel', 'ram', 'enforce-ram', 'ctx', 'batch', 'threads', 'policy', 'draft', 'draft-max', 'draft-min', 'rpc'),
];

export const SERVE_API_HELP = [
  'OpenAI-compatible API (--api):',
  '  ramforge serve --api MODEL.gguf                       http://127.0.0.1:8080/v1, the UI as well',
  '  ramforge serve --api --no-ui --api-key KEY --ram 4G --enforce-ram MODEL.gguf',
  '  ramforge serve --api --draft DRAFT.gguf MODEL.gguf     speculative decoding, one request at a time',
  'A model without a chat template (a base model) answers /v1/completions; /v1/chat/completions',
  'then answers 400. Requests beyond the sequences wait (--api-queue), then get 429.',
].join('\n');

export interface ServeApiFlags {
  host: string;
  port: number;
  loopback: boolean;
  apiKey: string | null;
  queue: number;
  ui: boolean;
  /** Origins whose pages may call the API; empty: none. */
  cors: string[];
  /** GET /metrics answers. */
  metrics: boolean;
  /** Sampling for request fields left unset (--temp, --seed, --n-predict…); only those given. */
  defaults: ApiSamplingDefaults;
  /** --alias and --tags. */
  names: ModelNames;
  /** GET /slots answers (--no-slots: 501). */
  slots: boolean;
  /** --pooling: embeddings' pooling. */
  pooling: EmbedPooling;
}

/** One of --alias and --tags, as a usage error (exit 2) when a name is not one. */
function nameList(flag: 'alias' | 'tags', text: string | undefined): string[] {
  try {
    return text === undefined ? [] : parseNameList(text, flag === 'alias' ? 'alias' : 'tag');
  } catch (e) {
    throw new UsageError(`--${flag}: ${(e as Error).message}`);
  }
}

/** The sampling defaults given on the command line. */
function samplingDefaults(f: Record<string, FlagValue | undefined>): ApiSamplingDefaults {
  const out: ApiSamplingDefaults = {};
  for (const { flag, field } of DEFAULT_FLAGS) {
    const v = f[flag];
    if (typeof v === 'number') out[field] = v;
  }
  return out;
}

/** The API's flags, or null without --api (then none of them may be given). */
export function serveApiFlags(f: Record<string, FlagValue | undefined>, uiPort: number): ServeApiFlags | null {
  const on = f.api === true;
  if (!on) {
    if (f.ui === false) throw new UsageError('--no-ui serves nothing without --api');
    if (f['api-key'] !== undefined) throw new UsageError('--api-key needs --api');
    if (f.cors !== undefined) throw new UsageError('--cors needs --api');
    if (f.metrics !== undefined) throw new UsageError('--metrics needs --api');
    if (f.pooling !== undefined) throw new UsageError('--pooling is how the API pools embeddings: it needs --api');
    for (const n of ['alias', 'tags']) if (f[n] !== undefined) throw new UsageError(`--${n} names the model for the API: it needs --api`);
    // --slots is the default: only --no-slots says something without --api.
    if (f.slots === false) throw new UsageError('--no-slots needs --api');
    const given = DEFAULT_FLAGS.find(({ flag }) => f[flag] !== undefined);
    if (given) throw new UsageError(`--${given.flag} is a default for API requests: it needs --api`);
    return null;
  }
  const api = typedFlags(f, API_FLAGS);
  const port = api['api-port'];
  if (port !== 0 && port === uiPort) throw new UsageError(`--api-port ${port} is also the UI's --port: give them different ports`);
  const host = String(f['api-host']);
  if (!/^[A-Za-z0-9.:-]{1,255}$/.test(host)) throw new UsageError(`--api-host must be an address or a host name, got '${host}'`);
  // An empty RAMFORGE_API_KEY is no key, as if it were not set.
  const key = api['api-key'] ?? (process.env.RAMFORGE_API_KEY || null);
  if (key !== null && !/^[\x21-\x7e]{1,256}$/.test(key)) throw new UsageError('the API key must be 1 to 256 printable characters without spaces');
  const queue = api['api-queue'];
  let cors: string[] = [];
  try {
    cors = api.cors === undefined ? [] : parseCorsOrigins(api.cors);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const pooling = api.pooling ?? 'mean';
  if (pooling !== 'mean' && pooling !== 'none') throw new UsageError(`--pooling must be mean or none, got '${pooling.slice(0, 40)}'`);
  return { host, port, loopback: isLoopbackHost(host), apiKey: key, queue, ui: f.ui !== false, cors, metrics: f.metrics === true, defaults: samplingDefaults(f), names: { aliases: nameList('alias', api.alias), tags: nameList('tags', api.tags) }, slots: api.slots, pooling };
}

/**
 * The sequences `serve --api` decodes together when --parallel is not given (`plan --serve` shows
 * the same choice). It is checked against every setting the load will have (a given --batch too:
 * sequences that ran at the default micro-batch were refused at the one given).
 */
export function serveParallel(view: ModelView, f: Record<string, FlagValue | undefined>, draft: string | null): ParallelChoice {
  return chooseParallel({
    view,
    settings: { ...settingsFromFlags({ ...f, parallel: 1, draft: draft ?? undefined }), draft, serving: true },
    budgetBytes: flagValues(f).ram ?? totalmem(),
    physicalCores: physicalCores(),
  });
}

/** Settings for the model loaded at start; under --api without --parallel, the plan's choice of sequences. */
export async function startSettings(model: string, f: Record<string, FlagValue | undefined>, api: boolean, log: (line: string) => void): Promise<RunSettings> {
  const v = flagValues(f);
  const ram = v.ram ?? null;
  if (f['enforce-ram'] === true && ram === null) throw new UsageError('--enforce-ram needs --ram SIZE');
  let parallel = v.parallel;
  const draft = v.draft === undefined ? null : resolve(v.draft);
  // A draft of another vocabulary (or with --parallel above 1) is refused here, exit 2, not
  // after serve has started; the header read for it is the one the choice below uses.
  const opened = draft !== null || (parallel === undefined && api) ? await openModelInput(model) : null;
  if (opened && draft !== null) await openDraftInput(opened, { ...f, draft });
  if (parallel === undefined && api && opened) {
    const choice = serveParallel(opened.view, f, draft);
    parallel = choice.parallel;
    log(choice.reason);
  }
  // The one mapping from flags to settings, with the draft's resolved path and the sequences
  // chosen above; serve has no --graph-trace, so its loads keep the app's default.
  const settings: RunSettings = { ...settingsFromFlags({ ...f, parallel: parallel ?? 1, draft: draft ?? undefined }), graphTrace: DEFAULT_RUN_SETTINGS.graphTrace };
  await refuseUnloadable(model, settings, opened);
  return settings;
}

/**
 * What the app's load would refuse (the shared preparation: a shape larger than the machine, an
 * enforced cap below the minimum) is exit 2 here, before serve starts serving a model it can
 * never load.
 */
async function refuseUnloadable(model: string, settings: RunSettings, opened: OpenedModel | null): Promise<void> {
  const m = opened ?? (await openModelInput(model));
  const files = m.shards.map((x) => x.path);
  const rpcNodes = await askRpcNodes(settings.rpc);
  try {
    prepareLoad({ modelPath: model, view: m.view, settings, machine: { ...loadMachine(files, runDiskBandwidth(files[0] as string, null), undefined, { view: m.view }), rpcNodes }, serving: true });
  } catch (e) {
    if (e instanceof SettingsError || e instanceof PlanInputError) throw new UsageError(e.message);
    throw e;
  }
}
