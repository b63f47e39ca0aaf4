// Navigation, new-window, permission and IPC-sender guards. Written against minimal structural
// types so tests exercise the real handlers without Electron.

export interface PreventableEvent {
  preventDefault(): void;
}

export interface GuardableContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview' | 'will-frame-navigate', listener: (e: PreventableEvent, ...args: unknown[]) => void): unknown;
}

export interface GuardableSession {
  setPermissionRequestHandler(handler: ((wc: unknown, permission: string, callback: (granted: boolean) => void) => void) | null): void;
  setPermissionCheckHandler(handler: ((wc: unknown, permission: string) => boolean) | null): void;
}

/** New windows are denied, every navigation or redirect is blocked (the app is one page), no webviews. */
export function applyNavigationGuards(wc: GuardableContents, log: (msg: string) => void = () => {}): void {
  wc.setWindowOpenHandler(({ url }) => {
    log(`blocked a new window for ${url.slice(0, 200)}`);
    return { action: 'deny' };
  });
  const block = (what: string) => (e: PreventableEvent, ...args: unknown[]) => {
    e.preventDefault();
    const url = typeof args[0] === 'string' ? args[0] : typeof (e as { url?: unknown }).url === 'string' ? (e as unknown as { url: string }).url : '';
    log(`blocked ${what} ${url.slice(0, 200)}`);
  };
  wc.on('will-navigate', block('navigation to'));
  wc.on('will-redirect', block('redirect to'));
  wc.on('will-attach-webview', block('a webview'));
}

/** The app asks for no permission (camera, notifications, …): deny them all. */
export function applyPermissionGuards(ses: GuardableSession): void {
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
}

export interface SenderFrame {
  url: string;
  parent?: unknown;
}

/**
 * An IPC message is served only when it comes from the main frame of the app's own window and
 * that frame shows the app (ramforge://app/… or the dev server), never from a sub-frame, another
 * window or a navigated-away page.
 */
export function isTrustedSender(frame: SenderFrame | null | undefined, mainFrame: unknown, allowedOrigins: readonly string[]): boolean {
  if (!frame || frame !== mainFrame) return false;
  if (frame.parent !== null && frame.parent !== undefined) return false;
  let origin: string;
  try {
    const u = new URL(frame.url);
    origin = u.protocol === 'ramforge:' ? `ramforge://${u.host}` : u.origin;
  } catch {
    return false;
  }
  return allowedOrigins.includes(origin);
}
