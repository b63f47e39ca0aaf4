// Serving the built renderer: safe path resolution (never outside the root) and content types.
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentType(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file under `root` a URL path names, or null when it would leave the root or is malformed.
 * Paths without an extension (client-side routes) map to index.html.
 */
export function resolveStatic(root: string, urlPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return null;
  }
  if (p.includes('\0') || p.includes('\\')) return null;
  if (p === '/' || p === '' || extname(p) === '') p = '/index.html';
  const base = resolve(root);
  const full = resolve(join(base, normalize(p)));
  if (full !== base && !full.startsWith(base + sep)) return null;
  return full;
}
