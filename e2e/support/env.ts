// Where things are for the e2e suite, and whether this machine can run each part.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'bin', 'ramforge.mjs');
export const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
export const DOWNLOADS = join(ROOT, 'test-output', 'downloads');
export const CHROMIUM = '/usr/bin/chromium';
export const IS_CI = process.env.CI === 'true';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/** Path of the Electron binary, or null when the electron package has none (no download here). */
export function electronBinary(): string | null {
  try {
    const p: unknown = createRequire(join(ROOT, 'package.json'))('electron');
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
