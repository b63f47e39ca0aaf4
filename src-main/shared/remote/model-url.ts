// Remote models named by URL: which inputs are URLs, the shard URLs of a split set named by one
// of its shards (llama.cpp's gguf-split naming, in the last path segment), the file name a
// download is saved under. Pure: no network here.
import { parseSplitName, splitFileName } from '../gguf/split.js';

/** http(s) URLs are remote models; everything else is a local path. */
export function isModelUrl(input: string): boolean {
  return /^https?:\/\//i.test(input.trim());
}

/** Parses an http(s) URL; throws a readable Error for anything else. */
export function parseModelUrl(input: string): URL {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    throw new Error(`'${input}' is not a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`'${input}': only http and https URLs are supported`);
  if (u.username || u.password) throw new Error(`'${redactUrl(u)}': credentials in the URL are not supported`);
  return u;
}

/** The last path segment, decoded (the name the server stores the file under). */
export function urlFileName(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  const last = u.pathname.split('/').filter((s) => s.length > 0).pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The URLs of every shard when the URL names one shard of a split set
 * (`…/name-00002-of-00003.gguf?download=true` → shards 1..3, the query kept), else [url].
 */
export function splitSetUrls(url: string): string[] {
  const u = parseModelUrl(url);
  const s = parseSplitName(urlFileName(u));
  if (!s) return [u.href];
  const segments = u.pathname.split('/');
  const out: string[] = [];
  for (let i = 1; i <= s.count; i++) {
    const v = new URL(u.href);
    segments[segments.length - 1] = encodeURIComponent(splitFileName(s.prefix, i, s.count));
    v.pathname = segments.join('/');
    out.push(v.href);
  }
  return out;
}

/**
 * A safe local file name for a download: the URL's last segment without directories, control
 * characters or a leading dot. Throws when nothing usable is left.
 */
export function downloadFileName(url: string): string {
  const raw = urlFileName(url);
  const name = raw.replace(/[\\/]/g, '_').replace(/[\u0000-\u001f\u007f]/g, '').replace(/^\.+/, '').trim();
  if (name.length === 0 || name.length > 255) throw new Error(`cannot name a file after ${redactUrl(url)}: its last path segment '${raw}' is not a usable file name`);
  return name;
}

/** The URL without its query string (signed URLs carry tokens there) for messages. */
export function redactUrl(url: string | URL): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return String(url);
  }
}
