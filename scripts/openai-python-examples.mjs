#!/usr/bin/env node
// openai-python's own example scripts run unchanged against `ramforge serve --api`: each chosen
// script (e2e/openai-python-examples/examples.json) is run as it is, with OPENAI_BASE_URL and
// OPENAI_API_KEY pointing the client at a server started here on a synthetic model with the
// Hermes/Qwen2.5 tool template. Writes results.json and results.md (the table docs/api.md shows)
// to --out; exits 1 when a script fails in a way examples.json does not list, 2 when it cannot
// run at all, and 0 with a printed reason, running nothing, where the Python lacks openai (CI has
// no openai-python).
//
//   node scripts/openai-python-examples.mjs [--out DIR] [--python PY] [--examples DIR | --git BARE_REPO] [SCRIPT ...]
//
// The scripts come from e2e/openai-python-examples/examples (copied from the commit its README
// names), or from an openai-python checkout (--examples CHECKOUT, or its examples/ folder), or
// from a bare clone (--git: read at HEAD).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classify, markdown, summarize } from './openai-python-examples/results.mjs';
import { freePort } from './free-port.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const here = join(root, 'e2e', 'openai-python-examples');
const list = JSON.parse(readFileSync(join(here, 'examples.json'), 'utf8'));
/** Each script's limit: without max_tokens a random model writes until its context is full. */
const SCRIPT_TIMEOUT_MS = 300_000;
/** One sequence of 4096 tokens: room for a random model's JSON strings to close. */
const SERVE_FLAGS = ['--ctx', '4096', '--parallel', '1'];
const KEY = 'ramforge-examples';

function options(argv) {
  const o = { out: join(tmpdir(), 'ramforge-openai-python-examples'), python: process.env.PYTHON || 'python3', scripts: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') o.out = argv[++i];
    else if (argv[i] === '--python') o.python = argv[++i];
    else if (argv[i] === '--examples') o.examples = argv[++i];
    else if (argv[i] === '--git') o.git = argv[++i];
    else o.scripts.push(argv[i]);
  }
  return o;
}

function fail(message) {
  process.stderr.write(`openai-python-examples: ${message}\n`);
  process.exit(2);
}

/** The folder the scripts are read from; a bare clone's are written into `work` first. */
function examplesDir(o, work) {
  if (o.git) {
    const dir = join(work, 'examples');
    for (const s of list.run) {
      const r = spawnSync('git', ['-C', o.git, 'show', `HEAD:examples/${s}`], { maxBuffer: 16 * 1024 * 1024 });
      if (r.status !== 0) fail(`${o.git} has no examples/${s} at HEAD`);
      mkdirSync(dirname(join(dir, s)), { recursive: true });
      writeFileSync(join(dir, s), r.stdout);
    }
    return dir;
  }
  const given = o.examples ?? join(here, 'examples');
  return existsSync(join(given, 'examples', 'demo.py')) ? join(given, 'examples') : given;
}


function synthModel(path) {
  const args = ['synth', '--quiet', '--preset', 'tiny', '--tool-template', '--seed', '42', '--out', path];
  const r = spawnSync(process.execPath, [join(root, 'bin', 'ramforge.mjs'), ...args], { stdio: 'inherit' });
  if (r.status !== 0) fail('ramforge synth failed');
}

async function startServer(model, port, work) {
  const log = join(work, 'serve.log');
  const args = [join(root, 'bin', 'ramforge.mjs'), 'serve', '--api', '--no-ui', '--api-port', String(port), '--api-key', KEY, ...SERVE_FLAGS, model];
  const { openSync } = await import('node:fs');
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, args, { stdio: ['ignore', fd, fd], env: { ...process.env, RAMFORGE_DATA: join(work, 'data'), RAMFORGE_API_KEY: '' } });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`serve exited with ${child.exitCode}:\n${readFileSync(log, 'utf8').slice(-2000)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  fail(`serve did not answer /health in 120 s:\n${readFileSync(log, 'utf8').slice(-2000)}`);
}

/** Runs one script as it is, its folder the working directory, the client pointed at serve. */
function runScript(python, dir, script, port) {
  return new Promise((resolve) => {
    const env = { ...process.env, OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: KEY, PYTHONDONTWRITEBYTECODE: '1' };
    const child = spawn(python, [join(dir, script)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (b) => { output = (output + b.toString()).slice(-64 * 1024); };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, SCRIPT_TIMEOUT_MS);
    child.on('close', (rc) => {
      clearTimeout(timer);
      resolve({ script, rc, timedOut, output });
    });
  });
}

async function main() {
  const o = options(process.argv.slice(2));
  if (spawnSync(o.python, ['-c', 'import openai']).status !== 0) {
    process.stdout.write(`openai-python-examples: skipped: ${o.python} has no openai-python (CI has none; set PYTHON to a Python that has it)\n`);
    return;
  }
  const scripts = o.scripts.length ? o.scripts : list.run;
  const unknown = scripts.filter((s) => !list.run.includes(s));
  if (unknown.length) fail(`not among examples.json's scripts: ${unknown.join(', ')}`);
  mkdirSync(o.out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'ramforge-oai-examples-'));
  const dir = examplesDir(o, work);
  const model = join(work, 'gpt.gguf');
  synthModel(model);
  const port = await freePort();
  const server = await startServer(model, port, work);
  const rows = [];
  try {
    for (const script of scripts) {
      const started = Date.now();
      const run = await runScript(o.python, dir, script, port);
      const row = { ...classify(run, list.known), seconds: Math.round((Date.now() - started) / 1000) };
      rows.push(row);
      writeFileSync(join(o.out, `${script.replace(/\//g, '_')}.log`), run.output);
      process.stdout.write(`  ${script}: ${row.class}${row.why ? ` (${row.why})` : ''} in ${row.seconds} s\n`);
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('close', r));
    rmSync(work, { recursive: true, force: true });
  }
  const summary = summarize(rows);
  writeFileSync(join(o.out, 'results.json'), JSON.stringify({ summary, commit: list.commit, tests: rows }, null, 2) + '\n');
  writeFileSync(join(o.out, 'results.md'), markdown(rows, list.not_applicable));
  const unexpected = rows.filter((r) => r.class === 'unexpected');
  process.stdout.write(`openai-python-examples: ${summary.passed} passed, ${summary.failed} failed (${unexpected.length} not listed), ${summary.skipped} skipped; tables in ${o.out}\n`);
  process.exit(unexpected.length ? 1 : 0);
}

await main();
