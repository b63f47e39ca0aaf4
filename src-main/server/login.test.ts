import { describe, it, expect } from 'vitest';
import { AccessKeys } from './login.js';

describe('AccessKeys', () => {
  it('a code buys one credential, once', () => {
    const k = new AccessKeys();
    const code = k.newCode();
    const cred = k.exchange(code);
    expect(cred).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(k.allows(cred)).toBe(true);
    expect(k.exchange(code)).toBeNull();
  });

  it('a code expires', () => {
    let t = 1000;
    const k = new AccessKeys({ codeTtlMs: 60_000, now: () => t });
    const a = k.newCode();
    const b = k.newCode(5_000);
    t += 5_001;
    expect(k.exchange(b)).toBeNull();
    t += 55_000;
    expect(k.exchange(a)).toBeNull();
  });

  it('refuses anything that is not a live secret, of any type or length, without throwing', () => {
    const k = new AccessKeys();
    const cred = k.exchange(k.newCode()) as string;
    for (const v of [undefined, null, '', 'x', cred.slice(1), cred + 'x', 'é'.repeat(43), 'x'.repeat(100_000), 42, {}, [cred]]) {
      expect(k.allows(v as string)).toBe(false);
      expect(k.exchange(v)).toBeNull();
    }
    // A credential is not a code, and a code is not a credential.
    expect(k.exchange(cred)).toBeNull();
    const code = k.newCode();
    expect(k.allows(code)).toBe(false);
  });

  it('keeps a bounded number of credentials, dropping the oldest', () => {
    const k = new AccessKeys({ maxCredentials: 3 });
    const creds = Array.from({ length: 4 }, () => k.exchange(k.newCode()) as string);
    expect(creds.map((c) => k.allows(c))).toEqual([false, true, true, true]);
  });
});
