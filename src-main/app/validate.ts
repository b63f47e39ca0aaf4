// Arguments that arrive over IPC or the WebSocket are untrusted shapes: check them here.
import { POLICIES, type ChatMessage, type PolicyName, type SamplingParams } from '../shared/worker-protocol.js';
import { SettingsError, validateMaxTokens, validateSampling } from '../shared/settings/run-settings.js';

export function checkString(v: unknown, name: string, max = 4096): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw new TypeError(`${name} must be a non-empty string (at most ${max} characters)`);
  return v;
}

export function checkMessages(v: unknown): ChatMessage[] {
  if (!Array.isArray(v) || v.length === 0) throw new TypeError('messages must be a non-empty array');
  return v.map((m, i) => {
    const r = (m as ChatMessage)?.role;
    const c = (m as ChatMessage)?.content;
    if (r !== 'system' && r !== 'user' && r !== 'assistant') throw new TypeError(`messages[${i}].role must be system, user or assistant`);
    if (typeof c !== 'string') throw new TypeError(`messages[${i}].content must be a string`);
    return { role: r, content: c };
  });
}

export function checkSampling(v: unknown): SamplingParams {
  return validateSampling(v);
}

/** The settings module's bound, and at least one token: a turn that generates nothing is a mistake. */
export function checkMaxTokens(v: unknown): number {
  const n = validateMaxTokens(v);
  if (n < 1) throw new SettingsError('maxTokens', 'must be at least 1');
  return n;
}

export function checkPolicies(v: unknown): PolicyName[] {
  if (!Array.isArray(v) || v.length === 0) throw new TypeError('policies must be a non-empty array');
  return v.map((p) => {
    if (!POLICIES.includes(p as PolicyName)) throw new TypeError(`unknown policy '${String(p)}' (known: ${POLICIES.join(', ')})`);
    return p as PolicyName;
  });
}
