// The BrowserWindow's options and the app's Content-Security-Policy, as pure data so a test can
// check every security setting without an Electron binary.
import type { BrowserWindowConstructorOptions } from 'electron';

/** The custom scheme the packaged renderer is served from (ramforge://app/index.html). */
export const APP_SCHEME = 'ramforge';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export function windowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'RAMforge',
    backgroundColor: '#0f1115',
    autoHideMenuBar: true,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      // Dropping a file must reach the app's drop handler, never navigate the window to it.
      navigateOnDragDrop: false,
      spellcheck: false,
      safeDialogs: true,
    },
  };
}

/**
 * The CSP of the app's pages. Production: scripts only from the app itself, no eval, no inline
 * script. `devServerOrigin` (electron-vite dev) adds what Vite's dev client needs.
 */
export function contentSecurityPolicy(devServerOrigin?: string): string {
  const dev = devServerOrigin ? ` ${devServerOrigin}` : '';
  const devWs = devServerOrigin ? ` ${devServerOrigin.replace(/^http/, 'ws')}` : '';
  return [
    "default-src 'self'",
    `script-src 'self'${dev}${devServerOrigin ? " 'unsafe-inline'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self'${dev}${devWs}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
  ].join('; ');
}
