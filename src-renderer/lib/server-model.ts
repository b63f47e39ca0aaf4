// The API server as the dashboard shows it: where it listens (or off), its load, and a bounded
// series of throughput over time. Pure; the server slice and the server panel read it.
import type { ApiServerOptions, ApiServerState } from '../../src-main/shared/api.js';
import type { ServerStats } from '../../src-main/shared/server-stats.js';
import { parseApiDefaultsText } from '../../src-main/shared/api-defaults.js';
import { parseNameList } from '../../src-main/shared/model-names.js';

export interface ServerPoint {
  /** Seconds since the first stats of this page. */
  tS: number;
  aggregateTokS: number | null;
  tokensPerPass: number | null;
}

/** About ten minutes of once-a-second stats. */
export const MAX_SERVER_POINTS = 600;

export function appendServerPoint(series: ServerPoint[], stats: ServerStats, tS: number): ServerPoint[] {
  const next = series.length >= MAX_SERVER_POINTS ? series.slice(series.length - MAX_SERVER_POINTS + 1) : series.slice();
  next.push({ tS, aggregateTokS: stats.aggregateTokS, tokensPerPass: stats.tokensPerPass });
  return next;
}

/**
 * Where clients reach the API, or null when it is off or not listening. The server's own stats
 * say it first (they also come from `ramforge serve --api`, whatever the app's setting); before
 * any arrive, the setting does. (The slice drops the stats when the user turns the server off.)
 */
export function serverUrl(state: ApiServerState | null, stats: ServerStats | null): string | null {
  if (stats) return stats.url;
  return state?.enabled ? state.url : null;
}

export interface ApiServerForm {
  enabled: boolean;
  portText: string;
  /** A new key to set; empty keeps the key set before. */
  keyText: string;
  /** Remove the key (anyone on this machine may call the API). */
  clearKey: boolean;
  /** Origins let in from a browser, separated by commas (empty: none); undefined keeps those set before. */
  corsText?: string;
  /** Sampling defaults as `temperature=0.2, seed=42` (empty: none); undefined keeps those set before. */
  defaultsText?: string;
  /** Names the model is served under and its tags, comma-separated (`serve --alias`, `--tags`); undefined keeps those set before. */
  aliasText?: string;
  tagsText?: string;
  /** GET /slots answers (`serve --slots`); undefined keeps what was set before. */
  slots?: boolean;
  /** Embeddings give a vector per token (`serve --pooling none`) instead of one per text; undefined keeps what was set before. */
  perToken?: boolean;
}

/** The setApiServer request for a form, or what is wrong with it (checked as the host checks it). */
export function apiServerRequest(f: ApiServerForm): { ok: ApiServerOptions } | { error: string } {
  const t = f.portText.trim();
  const port = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: 'port must be a whole number from 1 to 65535' };
  const out: ApiServerOptions = { enabled: f.enabled, port };
  // The host checks each origin (as `serve --cors` does) and says which one is not.
  if (f.corsText !== undefined) out.cors = f.corsText.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (f.defaultsText !== undefined) {
    try {
      out.defaults = parseApiDefaultsText(f.defaultsText);
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  if (f.aliasText !== undefined || f.tagsText !== undefined) {
    try {
      out.names = { aliases: parseNameList(f.aliasText ?? '', 'alias'), tags: parseNameList(f.tagsText ?? '', 'tag') };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  if (f.slots !== undefined) out.slots = f.slots;
  if (f.perToken !== undefined) out.pooling = f.perToken ? 'none' : 'mean';
  if (f.clearKey) out.apiKey = null;
  else if (f.keyText !== '') {
    if (!/^[\x21-\x7e]{1,256}$/.test(f.keyText)) return { error: 'the key must be 1 to 256 printable characters without spaces' };
    out.apiKey = f.keyText;
  }
  return { ok: out };
}
