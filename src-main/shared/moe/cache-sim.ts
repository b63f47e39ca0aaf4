// An expert cache replayed offline over the routing a run saw: per MoE layer, a sequence of
// requests (a micro-batch's experts), a cache of `capacity` experts. Belady's offline optimum
// (evict the expert needed furthest in the future) is the floor no online policy can beat; LRU
// as the runtime evicts (a request wider than the cache is computed from the staging buffer and
// leaves the cache as it was) is what a plan can predict from a trace. Pure.

export interface RouteRequest {
  /** 0 prompt, 1 decode. */
  phase: number;
  experts: readonly number[];
}

export interface SimResult {
  /** Experts read (not in the cache when their request came). */
  misses: number;
  decodeMisses: number;
  requests: number;
  decodeRequests: number;
  /** Experts requested (each request's distinct experts). */
  routed: number;
  decodeRouted: number;
}

function blank(reqs: readonly RouteRequest[]): SimResult {
  let routed = 0;
  let decodeRouted = 0;
  let decodeRequests = 0;
  for (const r of reqs) {
    routed += r.experts.length;
    if (r.phase === 1) {
      decodeRouted += r.experts.length;
      decodeRequests++;
    }
  }
  return { misses: 0, decodeMisses: 0, requests: reqs.length, decodeRequests, routed, decodeRouted };
}

/** For each request and each of its experts, the index of that expert's next request (Infinity: none). */
function nextUses(reqs: readonly RouteRequest[]): number[][] {
  const next = new Map<number, number>();
  const out: number[][] = new Array(reqs.length);
  for (let i = reqs.length - 1; i >= 0; i--) {
    const r = reqs[i] as RouteRequest;
    out[i] = r.experts.map((e) => next.get(e) ?? Infinity);
    for (const e of r.experts) next.set(e, i);
  }
  return out;
}

export function simulateBelady(reqs: readonly RouteRequest[], capacity: number): SimResult {
  const res = blank(reqs);
  const nu = new Map<number, number>();
  const cache = new Set<number>();
  const nexts = nextUses(reqs);
  const next = (e: number): number => nu.get(e) as number;
  reqs.forEach((r, i) => {
    const missing = r.experts.filter((e) => !cache.has(e));
    res.misses += missing.length;
    if (r.phase === 1) res.decodeMisses += missing.length;
    r.experts.forEach((e, j) => nu.set(e, (nexts[i] as number[])[j] as number));
    if (r.experts.length > capacity) {
      // Wider than the cache: read what it lacks, then keep the experts needed soonest.
      const keep = [...new Set([...cache, ...r.experts])].sort((a, b) => next(a) - next(b)).slice(0, capacity);
      cache.clear();
      for (const e of keep) cache.add(e);
      return;
    }
    // Each miss takes a free slot, else evicts the expert (not this request's) needed furthest ahead.
    const inReq = new Set(r.experts);
    for (const e of missing) {
      if (cache.size >= capacity) {
        let victim = -1;
        for (const c of cache) if (!inReq.has(c) && (victim < 0 || next(c) > next(victim))) victim = c;
        cache.delete(victim);
      }
      cache.add(e);
    }
  });
  return res;
}

export function simulateLru(reqs: readonly RouteRequest[], capacity: number): SimResult {
  const res = blank(reqs);
  const lastUse = new Map<number, number>();
  reqs.forEach((r, i) => {
    let miss = 0;
    for (const e of r.experts) if (!lastUse.has(e)) miss++;
    res.misses += miss;
    if (r.phase === 1) res.decodeMisses += miss;
    // Wider than the cache: computed from the staging buffer, the cache untouched.
    if (r.experts.length > capacity) return;
    for (const e of r.experts) lastUse.set(e, i);
    while (lastUse.size > capacity) {
      let victim = -1;
      let oldest = Infinity;
      for (const [e, t] of lastUse)
        if (t < oldest) {
          oldest = t;
          victim = e;
        }
      lastUse.delete(victim);
    }
  });
  return res;
}
