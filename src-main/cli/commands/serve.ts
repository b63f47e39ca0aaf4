// `ramforge serve`: browser mode. Serves the built renderer on 127.0.0.1 and the app API over a
// local WebSocket, prints the URL, runs until interrupted.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { typedFlags, type CommandSpec, type FlagSpec } from '../args.js';
import { EXIT, UsageError } from '../../shared/errors.js';
import { AppService } from '../../app/service.js';
import { workerHostFactory } from '../../app/host-factory.js';
import { buildTurnReport } from '../../app/report.js';
import { ensureDemoModel, modelsDir } from '../../app/demo-model.js';
import { startServer } from '../../server/index.js';
import { dataRoot, packageRoot } from '../../node/paths.js';
import { serveApiFlags, startSettings, SERVE_API_FLAGS, SERVE_API_HELP, type ServeApiFlags } from './serve-api-flags.js';
import { modelIdOf } from '../../api/model-id.js';
import { servedId } from '../../shared/model-names.js';
import { catchStopSignals } from '../stop-signals.js';
import { routingCachePath } from '../../node/routing-cache.js';
import { recoveryLine } from '../../shared/recovery.js';

/**
 * The browser gets a URL with its own one-time code, valid for a minute: a command line is
 * readable by every local user (/proc/PID/cmdline), and this code is worth nothing once the
 * page has traded it for its credential. (Were another process to trade it first, the page
 * says the address was already used, so a stolen login does not go unnoticed.)
 */
const OPEN_CODE_TTL_MS = 60_000;

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(cmd, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => process.stderr.write(`ramforge serve: could not run ${cmd}; open the URL yourself\n`));
    child.unref();
  } catch {
    process.stderr.write(`ramforge serve: could not open a browser; open the URL yourself\n`);
  }
}

/** serve's own flags (the API's are in serve-api-flags.ts, the shared ones in run-flags.ts). */
const SERVE_FLAGS = [
  { name: 'port', type: 'int', description: 'port on 127.0.0.1 (0 = any free port)', default: 0 },
  { name: 'model', type: 'string', valueName: 'PATH', description: 'a GGUF model to list first and load at start' },
  { name: 'demo', type: 'boolean', description: 'use the built-in demo model (synthesized on first use) when --model is not given' },
  { name: 'open', type: 'boolean', description: 'open the URL in the default browser' },
  { name: 'renderer', type: 'string', valueName: 'DIR', description: 'folder of the built renderer (default: out/renderer in the package)' },
  { name: 'max-upload', type: 'size', description: 'largest model file accepted by drag and drop (default 64G)' },
  { name: 'upload-quota', type: 'size', description: 'most bytes all dropped files together may hold in the uploads folder (default 256G)' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'serve',
  summary: 'serve the app UI in a browser on 127.0.0.1 (browser mode), and with --api an OpenAI-compatible API',
  positionals: [{ name: 'MODEL', description: 'a GGUF model to load at start (as --model)' }],
  flags: [
    ...SERVE_FLAGS,
    ...SERVE_API_FLAGS,
  ],
  details: [
    'The printed URL carries a one-time login code (valid for 5 minutes, for one browser tab;',
    'press Enter in the terminal for a new one). The server answers only on 127.0.0.1 and only',
    'to pages it served. Dropped model files are stored in the data folder (models/uploads).',
    '',
    'Examples:',
    '  ramforge serve --port 8080',
    '  ramforge serve --model ./t.gguf --open',
    '',
    SERVE_API_HELP,
  ].join('\n'),
  async run(args) {
    const signals = catchStopSignals();
    const own = typedFlags(args.flags, SERVE_FLAGS);
    const port = own.port;
    if (port < 0 || port > 65535) throw new UsageError(`--port must be between 0 and 65535, got ${port}`);
    const maxUpload = own['max-upload'];
    const quota = own['upload-quota'];
    const api: ServeApiFlags | null = serveApiFlags(args.flags, port);
    const rendererDir = resolve(own.renderer ?? join(packageRoot(), 'out', 'renderer'));
    if (api?.ui !== false && !existsSync(join(rendererDir, 'index.html'))) {
      process.stderr.write(`ramforge serve: warning: ${rendererDir} has no index.html (build it with: npm run build:app)\n`);
    }
    if (args.positionals.length > 0 && args.flags.model !== undefined) throw new UsageError('give the model once: as MODEL or as --model');
    if (args.flags.draft !== undefined && args.positionals.length === 0 && args.flags.model === undefined && args.flags.demo !== true) throw new UsageError('--draft is for the model serve loads at start: give a MODEL');
    // Without the UI nothing else could ever load a model.
    if (api?.ui === false && args.positionals.length === 0 && args.flags.model === undefined && args.flags.demo !== true) throw new UsageError('--no-ui needs a MODEL to serve (or --demo)');
    let model = (args.positionals[0] as string | undefined) ?? own.model;
    if (model !== undefined) {
      model = resolve(model);
      if (!existsSync(model)) throw new UsageError(`no such model file: ${model}`);
    } else if (args.flags.demo === true) {
      model = await ensureDemoModel((l) => process.stderr.write(l + '\n'));
    }

    const service = new AppService({
      dataDir: dataRoot(),
      hostFactory: workerHostFactory(),
      pinnedModels: () => (model ? [model] : []),
      buildReport: buildTurnReport,
      ...(api ? { apiQueue: api.queue } : {}),
    });
    // Before anything reads the data folder: what a crash of the last run left behind.
    const recovered = recoveryLine(await service.recover([routingCachePath()]));
    if (recovered) process.stderr.write(`ramforge serve: ${recovered}\n`);
    // The model's settings come first: choosing --parallel reads its header (a bad file is exit 2).
    const settings = model ? await startSettings(model, args.flags, api !== null, (l) => process.stderr.write(`ramforge serve: ${l}\n`)) : null;
    if (signals.stopped) return EXIT.ok;
    const server = api?.ui === false
      ? null
      : await startServer({
          service,
          rendererDir,
          uploadDir: join(modelsDir(), 'uploads'),
          port,
          uploadLimits: { ...(maxUpload !== undefined ? { maxBytes: maxUpload } : {}), ...(quota !== undefined ? { quotaBytes: quota } : {}) },
        });
    if (signals.stopped) {
      await Promise.allSettled([service.close(), server?.close()]);
      return EXIT.ok;
    }
    if (server) {
      process.stdout.write(`RAMforge is serving on ${server.url}\n`);
      process.stdout.write('That address logs one browser tab in, once, within 5 minutes.' + (process.stdin.isTTY ? ' Press Enter here for a new one.\n' : '\n'));
      if (args.flags.open === true) openBrowser(server.loginUrl(OPEN_CODE_TTL_MS));
    }
    // The load begins before the API listens, so that a client asking at once is told the model
    // is loading (503, as llama-server answers) rather than that there is none.
    if (model && settings && !signals.stopped) {
      const m = model;
      service.load(m, settings).then(
        (info) => process.stderr.write(`ramforge serve: loaded ${info.name} (${m})${api ? `; the API serves it as '${servedId(api.names, modelIdOf(m))}'` : ''}\n`),
        (e: unknown) => process.stderr.write(`ramforge serve: could not load ${m}: ${(e as Error).message}\n`),
      );
    }
    if (api) {
      if (!api.loopback) process.stderr.write(`ramforge serve: warning: the API listens on ${api.host}, reachable from other machines${api.apiKey === null ? ' and without a key (--api-key)' : ''}\n`);
      let listening;
      try {
        listening = await service.startApiServer({ host: api.host, port: api.port, apiKey: api.apiKey, cors: api.cors, metrics: api.metrics, defaults: api.defaults, names: api.names, slots: api.slots, pooling: api.pooling });
      } catch (e) {
        await Promise.allSettled([service.close(), server?.close()]);
        process.stderr.write(`ramforge serve: ${(e as Error).message}\n`);
        return EXIT.failure;
      }
      process.stdout.write(`OpenAI-compatible API on ${listening.url}${api.apiKey !== null ? ' (requests need: Authorization: Bearer <key>)' : ''}\n`);
    } else {
      // Browser mode is the app: its API setting (the sidebar's switch) holds here as well.
      const st = await service.restoreApiServer();
      if (st.url) process.stdout.write(`OpenAI-compatible API on ${st.url} (the app's setting)\n`);
      else if (st.error) process.stderr.write(`ramforge serve: the app's API setting is on, but ${st.error}\n`);
    }
    // Enter prints a fresh login address (another tab, or the first one expired).
    const input = server && process.stdin.isTTY ? createInterface({ input: process.stdin }) : null;
    input?.on('line', () => server && process.stdout.write(`New login address: ${server.loginUrl()}\n`));

    await signals.arrived;
    input?.close();
    // A load in flight included: the service ends its worker and waits for it.
    await Promise.allSettled([service.close(), server?.close()]);
    return EXIT.ok;
  },
};
