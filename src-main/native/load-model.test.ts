// The prefault choice reaches llama.cpp through RAMFORGE_NO_PREFAULT during the load call only.
import { afterEach, describe, expect, it } from 'vitest';
import type { NativeModel } from './addon.js';
import { loadModel, NO_PREFAULT_ENV } from './load-model.js';

const seen: (string | undefined)[] = [];
const addon = {
  loadModel: async (_paths: string[], opts?: object) => {
    seen.push(process.env[NO_PREFAULT_ENV]);
    if ((opts as { fail?: boolean }).fail) throw new Error('load failed');
    expect(opts).not.toHaveProperty('prefault');
    return {} as NativeModel;
  },
};

afterEach(() => {
  seen.length = 0;
  delete process.env[NO_PREFAULT_ENV];
});

describe('loadModel', () => {
  it('sets the variable for a load without prefault and removes it after', async () => {
    await loadModel(addon, ['m.gguf'], { mmap: true, prefault: false });
    await loadModel(addon, ['m.gguf'], { mmap: true, prefault: true });
    expect(seen).toEqual(['1', undefined]);
    expect(process.env[NO_PREFAULT_ENV]).toBeUndefined();
  });

  it('puts back what was there before, also when the load fails', async () => {
    process.env[NO_PREFAULT_ENV] = 'x';
    await loadModel(addon, ['m.gguf'], { prefault: true });
    expect(process.env[NO_PREFAULT_ENV]).toBe('x');
    await expect(loadModel(addon, ['m.gguf'], { prefault: false, fail: true } as never)).rejects.toThrow('load failed');
    expect(seen).toEqual([undefined, '1']);
    expect(process.env[NO_PREFAULT_ENV]).toBe('x');
  });
});
