import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_SETTINGS, DEFAULT_SAMPLING, LIMITS, SettingsError, validateMaxTokens, validateRunSettings, validateSampling } from './run-settings.js';

describe('run settings', () => {
  it('fills in the defaults and leaves ctx, batch and threads to be chosen', () => {
    const s = validateRunSettings({ ramBytes: 1 << 30 });
    expect(s).toEqual({ ...DEFAULT_RUN_SETTINGS, ramBytes: 1 << 30 });
    expect(s.ctx).toBeNull();
    expect(s.batch).toBeNull();
    expect(s.threads).toBeNull();
    expect(validateRunSettings(undefined)).toEqual(DEFAULT_RUN_SETTINGS);
  });

  it('refuses out-of-range and mistyped fields, naming the field', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ ctx: 0 }, 'ctx'],
      [{ ctx: LIMITS.ctx.max + 1 }, 'ctx'],
      [{ ctx: 2.5 }, 'ctx'],
      [{ threads: 10_000 }, 'threads'],
      [{ batch: -1 }, 'batch'],
      [{ policy: 'fastest' }, 'policy'],
      [{ prefetchDepth: 99 }, 'prefetchDepth'],
      [{ repack: 'yes' }, 'repack'],
      [{ ramBytes: -5 }, 'ramBytes'],
    ];
    for (const [input, field] of bad) {
      let err: unknown;
      try {
        validateRunSettings(input);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(input)).toBeInstanceOf(SettingsError);
      expect((err as SettingsError).field).toBe(field);
    }
    expect(() => validateRunSettings('8G')).toThrow(SettingsError);
  });

  it('bounds every sampling number: huge repeat windows and non-integer or negative seeds are refused', () => {
    expect(validateSampling(undefined)).toEqual(DEFAULT_SAMPLING);
    expect(() => validateSampling({ repeatLastN: 2e9 })).toThrow(/repeatLastN/);
    expect(() => validateSampling({ seed: -1 })).toThrow(/seed/);
    expect(() => validateSampling({ seed: 1.5 })).toThrow(/seed/);
    expect(() => validateSampling({ temperature: Number.NaN })).toThrow(/temperature/);
    expect(() => validateSampling({ topP: 2 })).toThrow(/topP/);
    expect(validateSampling({ temperature: 0, seed: 42 })).toMatchObject({ temperature: 0, seed: 42 });
    expect(() => validateMaxTokens(-1)).toThrow(/maxTokens/);
    expect(validateMaxTokens(16)).toBe(16);
  });
});
