// Turning the HTTP API on and off: from the app's setting (kept in the data folder, restored at
// start) or from `ramforge serve --api` (its flags, not kept). One change at a time; a port
// that is taken becomes the state's `error`, never an exception in the app.
import type { EmbedPooling } from '../shared/generation-protocol.js';
import type { ApiBackend } from '../api/backend.js';
import { startApiServer, type RunningApiServer } from '../api/http-server.js';
import { ServerMetrics } from '../api/metrics.js';
import type { ServerStatsFeed } from '../api/stats-feed.js';
import type { ApiServerState } from '../shared/api-server-state.js';
import { ApiServerOptionsError, validateApiServerOptions } from '../shared/api-server-state.js';
import { parseCorsOrigins } from '../api/cors.js';
import { readApiSetting, writeApiSetting } from './api-setting.js';
import { apiDefaultsText, type ApiSamplingDefaults } from '../shared/api-defaults.js';
import { NO_MODEL_NAMES, type ModelNames } from '../shared/model-names.js';

export interface ListenOptions {
  host: string;
  port: number;
  apiKey: string | null;
  /** Origins whose pages may call the API (`serve --cors`); none when absent. */
  cors?: string[];
  /** GET /metrics answers (`serve --metrics`). */
  metrics?: boolean;
  /** Sampling for request fields left unset (`serve --temp …`, the app's setting); none when absent. */
  defaults?: ApiSamplingDefaults;
  /** The names the model is served under (`serve --alias`, `--tags`, the app's setting); the file's when absent. */
  names?: ModelNames;
  /** GET /slots answers (`serve --slots`, the default; the app's setting); off: 501. */
  slots?: boolean;
  /** Embeddings' pooling (`serve --pooling`, the app's setting); mean when absent. */
  pooling?: EmbedPooling;
}

/** The origins the app was given, as `serve --cors` takes them (ApiServerOptionsError when one is not an origin). */
function corsOf(list: string[]): string[] {
  if (list.length === 0) return [];
  try {
    return parseCorsOrigins(list.join(','));
  } catch (e) {
    throw new ApiServerOptionsError((e as Error).message.replace(/^--cors:? ?/, 'CORS origins: '));
  }
}

/** Nothing a running server was started with would change (else it restarts with the new options). */
function sameListen(a: ListenOptions, b: ListenOptions): boolean {
  const defaults = (l: ListenOptions) => apiDefaultsText(l.defaults ?? {});
  const names = (l: ListenOptions) => JSON.stringify(l.names ?? NO_MODEL_NAMES);
  return a.host === b.host && a.port === b.port && a.apiKey === b.apiKey && (a.cors ?? []).join(',') === (b.cors ?? []).join(',') && defaults(a) === defaults(b) && names(a) === names(b) && (a.slots ?? true) === (b.slots ?? true) && (a.pooling ?? 'mean') === (b.pooling ?? 'mean');
}

export class ApiServerControl {
  private server: RunningApiServer | null = null;
  private listen: ListenOptions | null = null;
  private enabled = false;
  private error: string | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly backend: ApiBackend,
    private readonly feed: ServerStatsFeed,
    private readonly settingFile: string,
  ) {}

  state(): ApiServerState {
    return {
      enabled: this.enabled,
      url: this.server?.url ?? null,
      port: this.server?.port ?? this.listen?.port ?? 0,
      hasKey: (this.listen?.apiKey ?? null) !== null,
      error: this.error,
      cors: this.listen?.cors ?? [],
      defaults: this.listen?.defaults ?? {},
      names: this.listen?.names ?? NO_MODEL_NAMES,
      slots: this.listen?.slots ?? true,
      pooling: this.listen?.pooling ?? 'mean',
    };
  }

  /** The stored setting, with what is running now. */
  async get(): Promise<ApiServerState> {
    await this.chain.catch(() => undefined);
    if (this.listen === null) {
      const s = await readApiSetting(this.settingFile);
      return { enabled: s.enabled, url: null, port: s.port, hasKey: s.apiKey !== null, error: null, cors: s.cors, defaults: s.defaults, names: s.names, slots: s.slots, pooling: s.pooling };
    }
    return this.state();
  }

  /** The app's switch: kept in the setting file, then applied (on 127.0.0.1). */
  set(opts: unknown): Promise<ApiServerState> {
    const o = validateApiServerOptions(opts);
    const asked = o.cors === undefined ? undefined : corsOf(o.cors);
    return this.serial(async () => {
      const before = await readApiSetting(this.settingFile);
      const apiKey = o.apiKey === undefined ? before.apiKey : o.apiKey;
      const cors = asked ?? before.cors;
      const defaults = o.defaults ?? before.defaults;
      const names = o.names ?? before.names;
      const slots = o.slots ?? before.slots;
      const pooling = o.pooling ?? before.pooling;
      await writeApiSetting(this.settingFile, { enabled: o.enabled, port: o.port, apiKey, cors, defaults, names, slots, pooling });
      await this.apply(o.enabled, { host: '127.0.0.1', port: o.port, apiKey, cors, defaults, names, slots, pooling });
      return this.state();
    });
  }

  /** At app start: on again if the user left it on. */
  restore(): Promise<ApiServerState> {
    return this.serial(async () => {
      const s = await readApiSetting(this.settingFile);
      await this.apply(s.enabled, { host: '127.0.0.1', port: s.port, apiKey: s.apiKey, cors: s.cors, defaults: s.defaults, names: s.names, slots: s.slots, pooling: s.pooling });
      return this.state();
    });
  }

  /** `ramforge serve --api`: listens as the flags say (not kept); a failure to listen throws. */
  start(l: ListenOptions): Promise<RunningApiServer> {
    return this.serial(async () => {
      await this.apply(true, l);
      if (!this.server) throw new Error(this.error ?? 'the API server did not start');
      return this.server;
    });
  }

  close(): Promise<void> {
    return this.serial(() => this.apply(false, this.listen ?? { host: '127.0.0.1', port: 0, apiKey: null }));
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const p = this.chain.catch(() => undefined).then(f);
    this.chain = p;
    return p;
  }

  private async apply(enabled: boolean, l: ListenOptions): Promise<void> {
    const same = this.server !== null && this.listen !== null && sameListen(this.listen, l);
    this.enabled = enabled;
    this.listen = l;
    if (enabled && same) return;
    if (this.server) {
      const s = this.server;
      this.server = null;
      this.feed.stop();
      await s.close();
    }
    this.error = null;
    if (!enabled) return;
    try {
      const load = () => {
        const now = this.feed.snapshot();
        return { active: now.activeRequests, queued: now.queued, ...this.feed.passes() };
      };
      const metrics = l.metrics ? new ServerMetrics(load) : null;
      this.server = await startApiServer({ backend: this.backend, host: l.host, port: l.port, apiKey: l.apiKey, ...(l.cors ? { cors: l.cors } : {}), ...(metrics ? { metrics } : {}), ...(l.defaults ? { defaults: l.defaults } : {}), ...(l.names ? { names: l.names } : {}), slots: l.slots ?? true, pooling: l.pooling ?? 'mean' });
      this.feed.start(this.server.url);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      this.error = err.code === 'EADDRINUSE' ? `port ${l.port} is in use by another program: choose another port` : `the API server could not listen on ${l.host}:${l.port}: ${err.message}`;
    }
  }
}
