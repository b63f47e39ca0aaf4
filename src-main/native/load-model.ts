// Loading a model with or without prefaulting its mapping. llama.cpp reads that choice at load
// from the RAMFORGE_NO_PREFAULT environment variable (our patch,
// native/patches/0001-optional-mmap-prefault.patch): this is the one place that sets it, for the
// load call only, and it puts back whatever was there before.
import type { NativeAddon, NativeModel, NativeModelOptions } from './addon.js';

export const NO_PREFAULT_ENV = 'RAMFORGE_NO_PREFAULT';

/** `prefault: false` maps the file without reading it in ahead (pages fault in on first use). */
export async function loadModel(
  addon: Pick<NativeAddon, 'loadModel'>,
  paths: string[],
  opts: NativeModelOptions & { prefault: boolean },
  onProgress?: (fraction: number) => void,
): Promise<NativeModel> {
  const { prefault, ...native } = opts;
  const before = process.env[NO_PREFAULT_ENV];
  if (prefault) delete process.env[NO_PREFAULT_ENV];
  else process.env[NO_PREFAULT_ENV] = '1';
  try {
    return await addon.loadModel(paths, native, onProgress);
  } finally {
    if (before === undefined) delete process.env[NO_PREFAULT_ENV];
    else process.env[NO_PREFAULT_ENV] = before;
  }
}
