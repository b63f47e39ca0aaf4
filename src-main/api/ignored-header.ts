// Parameters a request gave that the server accepted without applying (unknown to it, or a
// sampler it does not run) are named in one response header and one log line: a client that
// misspells `max_token` can see it was not read. Pure.

export const IGNORED_HEADER = 'x-ramforge-ignored';
const MAX_NAMES = 32;
const MAX_CHARS = 1024;

/** The header's value: the names comma-separated, made header-safe, bounded; null when none. */
export function ignoredHeaderValue(names: readonly string[]): string | null {
  if (names.length === 0) return null;
  const safe = names.slice(0, MAX_NAMES).map((n) => n.replace(/[^\x21-\x7e]|,/g, '?'));
  const more = names.length > MAX_NAMES ? `,…+${names.length - MAX_NAMES}` : '';
  const text = safe.join(',');
  return (text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…` : text) + more;
}
