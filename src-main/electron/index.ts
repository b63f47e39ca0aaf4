// Electron main: one hardened window, the app service behind IPC, the inference worker in an
// Electron utility process. A worker crash is reported to the window; the window stays.
import { app, BrowserWindow, session, utilityProcess } from 'electron';
import { utilityWorkerSpawner } from './utility-worker.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppService } from '../app/service.js';
import { workerHostFactory } from '../app/host-factory.js';
import { defaultSettings } from '../app/settings.js';
import { buildTurnReport } from '../app/report.js';
import { dataRoot } from '../node/paths.js';
import { routingCachePath } from '../node/routing-cache.js';
import { recoveryLine } from '../shared/recovery.js';
import { handleAppProtocol, registerAppScheme } from './app-protocol.js';
import { modelFromArgv } from './args.js';
import { applyNavigationGuards, applyPermissionGuards } from './guards.js';
import { registerIpc } from './ipc.js';
import { APP_ORIGIN, contentSecurityPolicy, windowOptions } from './window-options.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const devUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const log = (m: string): void => void process.stderr.write(`ramforge: ${m}\n`);

registerAppScheme();
app.enableSandbox();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let service: AppService | null = null;

  app.whenReady().then(async () => {
    const rendererDir = join(here, '..', 'renderer');
    handleAppProtocol(rendererDir);
    applyPermissionGuards(session.defaultSession);
    const devOrigin = devUrl ? new URL(devUrl).origin : undefined;
    if (devOrigin) {
      // The dev server's pages get the CSP as a header too.
      session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
        cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [contentSecurityPolicy(devOrigin)] } });
      });
    }

    const model = modelFromArgv(process.argv, process.env);
    service = new AppService({
      dataDir: dataRoot(),
      hostFactory: workerHostFactory(typeof utilityProcess?.fork === 'function' ? { spawnPlain: utilityWorkerSpawner } : {}),
      pinnedModels: () => (model ? [model] : []),
      buildReport: buildTurnReport,
    });
    // Before the window reads the data folder: what a crash of the last run left behind (the window shows it once too).
    const recovered = recoveryLine(await service.recover([routingCachePath()]));
    if (recovered) log(recovered);

    const preload = join(here, '..', 'preload', 'index.cjs');
    if (!existsSync(preload)) log(`warning: preload script missing at ${preload}`);
    const win = new BrowserWindow(windowOptions(preload));
    applyNavigationGuards(win.webContents, log);
    const allowed = devOrigin ? [APP_ORIGIN, devOrigin] : [APP_ORIGIN];
    const unregister = registerIpc(win, service, allowed);
    win.once('ready-to-show', () => win.show());
    win.on('closed', unregister);
    await win.loadURL(devUrl ?? `${APP_ORIGIN}/index.html`);
    if (model) {
      service.load(model, defaultSettings()).catch((e: unknown) => log(`could not load ${model}: ${(e as Error).message}`));
    }
    // The OpenAI-compatible API, if the user left it on (a taken port is shown in the settings, not fatal).
    service.restoreApiServer().then(
      (st) => st.error && log(`API server: ${st.error}`),
      (e: unknown) => log(`API server: ${(e as Error).message}`),
    );
  }).catch((e: unknown) => {
    log(`startup failed: ${(e as Error)?.stack ?? String(e)}`);
    app.exit(1);
  });

  // Any other web contents (none are expected) get the same guards; the window got them above.
  app.on('web-contents-created', (_e, contents) => {
    if (contents.getType() !== 'window') applyNavigationGuards(contents, log);
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', () => {
    void service?.close();
  });
}
