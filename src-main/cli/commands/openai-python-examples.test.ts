// openai-python's own example scripts (e2e/openai-python-examples, copied unchanged with their
// licence) run against `ramforge serve --api` through scripts/openai-python-examples.mjs: each
// passes, or fails as examples.json says it does (its output matching the listed pattern), and
// docs/api.md shows the list. The run needs openai-python, which CI does not have: where the
// Python (PYTHON, else python3) lacks it the run is skipped, in CI too, and says so.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../node/paths.js';
import { cliBuiltOrSkip } from '../built-cli.test-util.js';

interface Examples {
  commit: string;
  run: string[];
  known: { script: string; when: string; reason: string }[];
  not_applicable: { script: string; reason: string }[];
}
interface Row {
  script: string;
  outcome: 'passed' | 'failed' | 'skipped';
  class: 'passed' | 'known' | 'unexpected' | 'skipped';
  why: string;
}

const here = join(packageRoot(), 'e2e', 'openai-python-examples');
const list = JSON.parse(readFileSync(join(here, 'examples.json'), 'utf8')) as Examples;
const python = process.env.PYTHON || 'python3';
const hasOpenai = spawnSync(python, ['-c', 'import openai']).status === 0;
if (!hasOpenai) console.warn(`skipping openai-python's example scripts: ${python} has no openai-python (CI has none; PYTHON=a Python that has it runs them)`);
const run = hasOpenai && cliBuiltOrSkip("openai-python's example scripts");

describe("openai-python's example scripts: the list", () => {
  it('every script it runs is here, unchanged beside its licence; every known failure names one of them; docs/api.md shows them all', () => {
    expect(readFileSync(join(here, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
    expect(readFileSync(join(here, 'README.md'), 'utf8')).toContain(list.commit);
    expect(list.run.filter((s) => !existsSync(join(here, 'examples', s)))).toEqual([]);
    expect(list.known.filter((k) => !list.run.includes(k.script))).toEqual([]);
    const doc = readFileSync(join(packageRoot(), 'docs', 'api.md'), 'utf8');
    const section = doc.slice(doc.indexOf("## openai-python's example scripts"));
    expect(section.length).toBeLessThan(doc.length);
    const absent = [...list.run, ...list.not_applicable.map((n) => n.script)].filter((s) => !section.includes(`| \`${s}\` |`));
    expect(absent).toEqual([]);
  });
});

describe.skipIf(!run)("openai-python's example scripts, unchanged, against serve --api (skipped where the Python has no openai-python: CI has none)", () => {
  it('each script passes, or fails as examples.json lists it (its output matching the pattern), and most pass', () => {
    const out = mkdtempSync(join(tmpdir(), 'ramforge-oai-examples-test-'));
    try {
      const r = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'openai-python-examples.mjs'), '--out', out, '--python', python], { cwd: packageRoot(), encoding: 'utf8', timeout: 1_500_000 });
      expect(r.status, `${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`).toBe(0);
      const rows = (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { tests: Row[] }).tests;
      expect(rows.map((x) => x.script)).toEqual(list.run);
      expect(rows.filter((x) => x.class === 'unexpected').map((x) => `${x.script}: ${x.why}`)).toEqual([]);
      // The chat, streaming, async and token-count scripts depend on nothing random: they never
      // fail (one may be skipped where an older client lacks what it imports).
      const mustPass = ['demo.py', 'async_demo.py', 'streaming.py', 'responses_input_tokens.py', 'httpx2_client.py', 'responses/streaming_tools.py'];
      expect(rows.filter((x) => mustPass.includes(x.script) && x.outcome === 'failed').map((x) => `${x.script}: ${x.why}`)).toEqual([]);
      expect(rows.filter((x) => mustPass.includes(x.script) && x.outcome === 'passed').length).toBeGreaterThanOrEqual(4);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 1_500_000);
});
