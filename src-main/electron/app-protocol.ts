// Serves the built renderer at ramforge://app/… with the app's CSP on every response, so the
// policy does not depend on a <meta> tag and file:// is never used.
import { protocol } from 'electron';
import { readFile } from 'node:fs/promises';
import { resolveStatic, contentType } from '../server/static-files.js';
import { APP_HOST, APP_SCHEME, contentSecurityPolicy } from './window-options.js';

/** Must run before app 'ready'. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]);
}

export function handleAppProtocol(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return new Response('not found', { status: 404 });
    const file = resolveStatic(rendererDir, url.pathname);
    if (!file) return new Response('not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(body, {
        headers: {
          'content-type': contentType(file),
          'content-security-policy': contentSecurityPolicy(),
          'x-content-type-options': 'nosniff',
        },
      });
    } catch {
      return new Response('not found', { status: 404 });
    }
  });
}
