// llama.cpp's own server test suite (tools/server/tests of the pinned source, unchanged but for
// its start function) against `ramforge serve --api`, through scripts/llama-server-suite.mjs:
// every test that runs passes, or is on e2e/llama-server-suite/known.json with its reason. Needs
// Debian's python3-pytest, python3-requests, python3-wget and python3-filelock (.ci/run installs
// them): in CI their absence fails this test, elsewhere it skips and says why.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../node/paths.js';
import { cliBuiltOrSkip } from '../built-cli.test-util.js';

interface Known {
  ci_files: string[];
  cannot: { match: string; reason: string }[];
  missing: { match: string; feature: string }[];
}
const known = JSON.parse(readFileSync(join(packageRoot(), 'e2e', 'llama-server-suite', 'known.json'), 'utf8')) as Known;
/** The suite's files CI runs (the rest take minutes and fail for reasons the list gives). */
const SUITE_FILES = known.ci_files;
const python = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'llama-server-suite.mjs'), '--which-python'], { encoding: 'utf8' }).stdout.trim() || 'python3';
const hasPytest = spawnSync(python, ['-c', 'import pytest, requests, wget, filelock']).status === 0;
if (!hasPytest && process.env.CI !== 'true') console.warn('skipping the llama.cpp server suite: apt-get install python3-pytest python3-requests python3-wget python3-filelock');
const run = cliBuiltOrSkip("llama.cpp's server suite") && (hasPytest || process.env.CI === 'true');

interface Row {
  id: string;
  outcome: 'passed' | 'failed' | 'skipped';
  class: string;
  reason?: string;
  message: string;
}

describe("llama.cpp's server suite: the known list", () => {
  it('is the list docs/api.md gives: every entry, with its reason, in the section on the suite', () => {
    const doc = readFileSync(join(packageRoot(), 'docs', 'api.md'), 'utf8');
    const section = doc.slice(doc.indexOf("## llama.cpp's server test suite"));
    expect(section.length).toBeLessThan(doc.length);
    const absent = [...known.cannot.map((e) => [e.match, e.reason]), ...known.missing.map((e) => [e.match, e.feature])].filter(([m, why]) => !section.includes(`| \`${m}\` | ${why} |`));
    expect(absent).toEqual([]);
  });
});

describe.skipIf(!run)("llama.cpp's server test suite against serve --api", () => {
  it('every test of the files CI runs passes or is on the known list with its reason', () => {
    const out = mkdtempSync(join(tmpdir(), 'ramforge-llama-suite-'));
    try {
      const r = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'llama-server-suite.mjs'), '--out', out, '--python', python, ...SUITE_FILES], {
        cwd: packageRoot(),
        encoding: 'utf8',
        timeout: 900_000,
        maxBuffer: 256 * 1024 * 1024,
      });
      const tail = `${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`;
      expect(r.status, tail).toBe(0);
      const rows = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { tests: Row[] }).tests;
      expect(rows.filter((x) => x.class === 'unexpected').map((x) => `${x.id}: ${x.message}`)).toEqual([]);
      // Every file ran (a collection error would be one row with the file's name only).
      expect(new Set(rows.map((x) => x.id.split('::')[0]))).toEqual(new Set(SUITE_FILES));
      expect(rows.filter((x) => x.outcome === 'passed').length).toBeGreaterThan(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 900_000);
});
