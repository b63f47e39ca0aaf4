// Checks a message from the inference worker against the protocol (worker-protocol.ts) before
// the host acts on it. The worker runs llama.cpp over files a user dropped; whatever it sends
// is data to check, not a typed value: a message that does not fit is dropped and reported by
// the host, never thrown inside the main process's message listener. Pure: no Node, no DOM.
import type { ResidencyEventKind, ResidencySample } from './residency-types.js';
import type { WorkerEvent } from './worker-protocol.js';

/**
 * A failed check names the request a malformed `result` answered (`resultId`), so the host can
 * fail that request with the reason instead of leaving its caller waiting for ever.
 */
export type CheckedEvent = { ok: true; event: WorkerEvent } | { ok: false; reason: string; resultId?: number };

/** Bounds far above anything real, so a runaway worker cannot make the host allocate or loop for ages. */
const MAX_TEXT = 1 << 20;
const MAX_LIST = 1 << 20;

// Records over the unions they mirror: a member added to the type and not here (or the other
// way round) is a compile error, so the check cannot fall behind the protocol.
const SAMPLE_PHASES: Record<ResidencySample['phase'], true> = { load: true, prompt: true, decode: true, idle: true };
const RESIDENCY_EVENT_KINDS: Record<ResidencyEventKind, true> = { prefetch: true, drop: true, late: true, stall: true, release: true };

const isKey = (table: object, v: unknown): boolean => typeof v === 'string' && Object.hasOwn(table, v);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isId = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const isNumOrNull = (v: unknown): boolean => v === null || isNum(v);
const isText = (v: unknown): boolean => typeof v === 'string' && v.length <= MAX_TEXT;

/** The first field of `o` that fails its test, as "name", or null when all pass. */
function firstBad(o: Obj, tests: Record<string, (v: unknown) => boolean>): string | null {
  for (const [k, test] of Object.entries(tests)) if (!test(o[k])) return k;
  return null;
}

function checkToken(t: unknown): string | null {
  if (!isObj(t)) return 'token is not an object';
  const bad = firstBad(t, { index: isCount, tokenId: isCount, text: isText, tMs: isNum });
  if (bad) return `token.${bad} is missing or of the wrong type`;
  const pass = t['pass'];
  if (pass !== undefined && (!isObj(pass) || firstBad(pass, { drafted: isCount, accepted: isCount }))) return 'token.pass is not { drafted, accepted }';
  return null;
}

function checkResidencyEvent(e: unknown): boolean {
  if (!isObj(e)) return false;
  if (!isKey(RESIDENCY_EVENT_KINDS, e.kind)) return false;
  if (e.durMs !== undefined && !isNum(e.durMs)) return false;
  return isNum(e.tMs) && Number.isSafeInteger(e.layer) && isNum(e.bytes);
}

/** A ResidencySample: the fields the dashboard and the reports read. */
export function checkSample(s: unknown): string | null {
  if (!isObj(s)) return 'sample is not an object';
  if (!isKey(SAMPLE_PHASES, s.phase)) return 'sample.phase is not a known phase';
  const bad = firstBad(s, {
    tMs: isNum,
    token: isCount,
    persistentResident: isNumOrNull,
    rssBytes: isNumOrNull,
    cgroupBytes: isNumOrNull,
    cgroupLimitBytes: isNumOrNull,
    limitHits: isNumOrNull,
    pinnedResident: isNumOrNull,
    pinnedBytes: isNumOrNull,
    readBytes: isNumOrNull,
    majorFaults: isNumOrNull,
    decodeTokS: isNumOrNull,
  });
  if (bad) return `sample.${bad} is missing or of the wrong type`;
  const layers = s.layerResident;
  if (!Array.isArray(layers) || layers.length > MAX_LIST || !layers.every(isNumOrNull)) return 'sample.layerResident is not a list of byte counts';
  const outside = s.outsideResident;
  if (outside !== undefined && (!Array.isArray(outside) || outside.length > MAX_LIST || !outside.every(isNumOrNull))) return 'sample.outsideResident is not a list of byte counts';
  const events = s.events;
  if (!Array.isArray(events) || events.length > MAX_LIST || !events.every(checkResidencyEvent)) return 'sample.events is not a list of residency events';
  if (s.experts !== undefined) {
    const why = checkExpertSample(s.experts);
    if (why) return why;
  }
  if (s.network !== undefined) return checkNetworkSample(s.network);
  return null;
}

function checkNetworkSample(x: unknown): string | null {
  const nodeOk = (n: unknown): boolean => isObj(n) && typeof n.endpoint === 'string' && isNum(n.bytesSent) && isNum(n.bytesReceived) && isNum(n.waitMs);
  if (!isObj(x) || !Array.isArray(x.nodes) || x.nodes.length > MAX_LIST || !x.nodes.every(nodeOk)) return 'sample.network is not a list of {endpoint, bytesSent, bytesReceived, waitMs}';
  return null;
}

function checkExpertSample(x: unknown): string | null {
  if (!isObj(x)) return 'sample.experts is not an object';
  const bad = firstBad(x, { routed: isNum, hits: isNum, prefetchHits: isNum, loads: isNum, prefetches: isNum, readBytes: isNum, ioBusyMs: isNum, stalls: isNum, stallMs: isNum, predicted: isNum, predictedRight: isNum, staged: isNum, prefetchDropped: isNum, prefetchWastedBytes: isNum, predictions: isNum, predictionsIssued: isNum, repackedProjections: isNum, promoted: isNum, skipped: isNum, skippedWeight: isNum, warmed: isNum, deviceHits: isNum, uploads: isNum, uploadBytes: isNum });
  if (bad) return `sample.experts.${bad} is missing or of the wrong type`;
  const r = x.resident;
  const ints = (v: unknown): boolean => Array.isArray(v) && v.length <= MAX_LIST && v.every((e: unknown) => Number.isSafeInteger(e));
  const layerOk = (l: unknown): boolean => isObj(l) && Number.isSafeInteger(l.layer) && ints(l.slots) && ints(l.uses) && (l.deviceSlots === undefined || ints(l.deviceSlots));
  if (!Array.isArray(r) || r.length > MAX_LIST || !r.every(layerOk)) return 'sample.experts.resident is not a list of {layer, slots, uses}';
  return null;
}

function checkResult(m: Obj): string | null {
  if (m.ok === true) return 'value' in m ? null : 'a successful result has no value';
  if (m.ok !== false) return 'result.ok is not a boolean';
  const e = m.error;
  if (!isObj(e) || !isText(e.code) || !isText(e.message)) return 'a failed result has no {code, message} error';
  return null;
}

/** Is this message from the worker one the protocol allows? Never throws. */
export function checkWorkerEvent(m: unknown): CheckedEvent {
  try {
    return check(m);
  } catch (e) {
    // IPC delivers plain data, but a Proxy or getter (a test's fake process) must not escape either.
    return { ok: false, reason: `the message could not be read: ${(e as Error)?.message ?? String(e)}` };
  }
}

function check(m: unknown): CheckedEvent {
  const no = (reason: string): CheckedEvent => ({ ok: false, reason });
  if (!isObj(m)) return no(`a message is ${m === null ? 'null' : Array.isArray(m) ? 'an array' : typeof m}, not an object`);
  const type = m.type;
  let reason: string | null;
  switch (type) {
    case 'ready':
      reason = isId(m.pid) ? null : 'ready.pid is not a process id';
      break;
    case 'progress':
      reason = !isId(m.id) ? 'progress.id is not a request id' : isNum(m.fraction) && (m.fraction as number) >= 0 && (m.fraction as number) <= 1 ? null : 'progress.fraction is not a number in [0, 1]';
      break;
    case 'token':
      reason = isId(m.id) ? checkToken(m.token) : 'token.id is not a request id';
      break;
    case 'sample':
      reason = checkSample(m.sample);
      break;
    case 'result':
      reason = isId(m.id) ? checkResult(m) : 'result.id is not a request id';
      break;
    case 'serve-step': {
      const st = m.step;
      const bad = isObj(st) ? firstBad(st, { sequences: isCount, tokens: isCount, decoded: isCount, ms: isNum }) : 'step';
      reason = bad ? `serve-step.${bad} is missing or of the wrong type` : null;
      break;
    }
    default:
      reason = `unknown message type ${typeof type === 'string' ? `'${type.slice(0, 40)}'` : typeof type}`;
  }
  if (reason === null) return { ok: true, event: m as unknown as WorkerEvent };
  return type === 'result' && isId(m.id) ? { ok: false, reason, resultId: m.id as number } : no(reason);
}
