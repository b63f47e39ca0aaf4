// Pure: per decoded token, which layers the stream schedule read from storage and how long decode
// waited on each (a read not ready in time), beside the waits on the expert cache and on RPC nodes,
// so a slow token can be pointed at. The worker drains its events into each sample, and samples
// come at most every 50 ms: a sample that closes several tokens is one entry for all of them.
import type { ResidencySample } from '../residency-types.js';

export interface LayerWait {
  layer: number;
  /** Bytes read from storage for this layer in the entry's tokens. */
  readBytes: number;
  /** Milliseconds decode waited for this layer's reads (stall and late events; an expert cache's stalls too). */
  waitMs: number;
}

export interface TokenReads {
  /** The tokens this entry covers: (fromToken, toToken]. */
  fromToken: number;
  toToken: number;
  /** Wall time of the entry's tokens, from the sample before to this one. */
  ms: number;
  /** Bytes read from storage in these tokens: the stream schedule's per layer, and the expert cache's. */
  readBytes: number;
  /** The expert cache's reads (it counts them for the whole model, not per layer). */
  expertReadBytes: number;
  waitMs: number;
  /** Layers read or waited on, most waited first. */
  layers: LayerWait[];
  /** Waits on each RPC node in these tokens (empty without nodes). */
  nodes: { endpoint: string; waitMs: number }[];
}

/** The decode's tokens, one entry per sample that closed at least one token. */
export function tokenReads(samples: readonly ResidencySample[]): TokenReads[] {
  const out: TokenReads[] = [];
  let prev: ResidencySample | null = null;
  for (const s of samples) {
    if (s.phase !== 'decode') {
      if (s.phase !== 'idle') prev = s;
      continue;
    }
    if (prev && s.token > prev.token) out.push(entry(prev, s));
    if (!prev || s.token >= prev.token) prev = s;
  }
  return out;
}

function entry(prev: ResidencySample, s: ResidencySample): TokenReads {
  const by = new Map<number, LayerWait>();
  const at = (layer: number) => by.get(layer) ?? by.set(layer, { layer, readBytes: 0, waitMs: 0 }).get(layer)!;
  for (const e of s.events) {
    if (e.kind === 'prefetch') at(e.layer).readBytes += e.bytes;
    else if (e.kind === 'stall' || e.kind === 'late') at(e.layer).waitMs += e.durMs ?? 0;
  }
  const layers = [...by.values()].sort((a, b) => b.waitMs - a.waitMs || b.readBytes - a.readBytes || a.layer - b.layer);
  const before = new Map((prev.network?.nodes ?? []).map((n) => [n.endpoint, n.waitMs]));
  const expertReadBytes = s.experts ? s.experts.readBytes - (prev.experts?.readBytes ?? 0) : 0;
  return {
    fromToken: prev.token,
    toToken: s.token,
    ms: s.tMs - prev.tMs,
    readBytes: layers.reduce((a, l) => a + l.readBytes, 0) + expertReadBytes,
    expertReadBytes,
    waitMs: layers.reduce((a, l) => a + l.waitMs, 0),
    layers,
    nodes: (s.network?.nodes ?? []).map((n) => ({ endpoint: n.endpoint, waitMs: n.waitMs - (before.get(n.endpoint) ?? 0) })),
  };
}

/** The entry whose tokens took longest each (ms per token), or null without any; the first token carries the prompt's pass, so it counts only alone. */
export function slowestToken(entries: readonly TokenReads[]): TokenReads | null {
  let best: TokenReads | null = null;
  const decode = entries.some((e) => e.fromToken > 0) ? entries.filter((e) => e.fromToken > 0) : entries;
  for (const e of decode) if (!best || e.ms / (e.toToken - e.fromToken) > best.ms / (best.toToken - best.fromToken)) best = e;
  return best;
}
