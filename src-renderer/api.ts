// The single accessor for the host API: Electron's preload object, else the browser-mode
// WebSocket client (created once, on first use).
import type { RamforgeApi } from '../src-main/shared/api.js';
import { browserCredential } from './browser-login.js';
import { createWsClient, uploadFile } from './ws-client.js';

function preloadApi(): RamforgeApi | undefined {
  // Not a global augmentation: the preload owns the declaration of window.ramforge.
  return typeof window === 'undefined' ? undefined : (window as unknown as { ramforge?: RamforgeApi }).ramforge;
}

let current: RamforgeApi | null = null;

export function getApi(): RamforgeApi {
  if (current) return current;
  const pre = preloadApi();
  if (pre) {
    current = pre;
  } else {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // Logging in starts here, at startup: the one-time code leaves the address bar at once.
    current = createWsClient({ url: `${proto}//${location.host}/api`, credential: browserCredential });
  }
  return current;
}

/** Install an API object explicitly (unit tests; the dev-only visual check). */
export function setApi(api: RamforgeApi): void {
  current = api;
}

/** A host path for a dropped/picked file: Electron gives the real path; browser mode uploads it. */
export async function pathForDroppedFile(file: File): Promise<string> {
  const api = getApi();
  const local = api.pathForFile?.(file);
  if (local) return local;
  return uploadFile(file, fetch, await browserCredential());
}
