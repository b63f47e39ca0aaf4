#!/usr/bin/env node
// llama.cpp's own server test suite (tools/server/tests in the pinned source, the non-slow tests)
// run against `ramforge serve --api`: the suite is read where the pinned source has it, unchanged;
// only its ServerProcess.start is ours (e2e/llama-server-suite/ramforge_start.py). Installs
// nothing: the Python packages come from Debian (see docs/api.md). Prepares the synthetic models,
// runs pytest, writes results.json and results.md to --out, and exits 1 if a test fails that
// e2e/llama-server-suite/known.json does not list (2 when the suite cannot run at all).
//
//   node scripts/llama-server-suite.mjs [--out DIR] [--python PY] [FILE.py ...]
//   node scripts/llama-server-suite.mjs --which-python      the Python it would run the suite with
//   node scripts/llama-server-suite.mjs --known-tables      docs/api.md's "cannot" and "missing" tables, from known.json
import { PY_MODULES, suitePython } from './llama-server-suite/python.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseJunit, classify, summarize, markdown, knownTables } from './llama-server-suite/results.mjs';
import { freePort } from './free-port.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const suiteDir = join(root, 'e2e', 'llama-server-suite');
/** What the suite imports (utils.py, conftest.py) and pytest itself; Debian package in brackets. */
/**
 * The presets' synthetic models: llama's tiny shape; the MoE preset with experts. Their template is
 * the Hermes/Qwen2.5 ChatML one that renders tools (llama-server calls tools through any template;
 * serve parses calls in that format only), so the suite's tool requests run.
 */
const BASE = ['--preset', 'tiny', '--tool-template', '--seed', '42'];
const MODELS = {
  'tinyllama-2': BASE,
  'bert-bge-small': BASE,
  'tinyllama-infill': BASE,
  'stories15m-moe': [...BASE, '--experts', '4', '--experts-used', '2'],
  'jina-reranker': BASE,
};

function options(argv) {
  const o = { out: join(tmpdir(), 'ramforge-llama-server-suite'), python: suitePython(), files: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') o.out = argv[++i];
    else if (argv[i] === '--python') o.python = argv[++i];
    else if (argv[i] === '--which-python') o.which = true;
    else if (argv[i] === '--known-tables') o.tables = true;
    else o.files.push(argv[i]);
  }
  return o;
}

function fail(message) {
  process.stderr.write(`llama-server-suite: ${message}\n`);
  process.exit(2);
}

function checkPython(python) {
  const missing = Object.entries(PY_MODULES).filter(([m]) => spawnSync(python, ['-c', `import ${m}`]).status !== 0);
  if (missing.length) fail(`${python} lacks ${missing.map(([m]) => m).join(', ')}: apt-get install ${missing.map(([, p]) => p).join(' ')}`);
  return spawnSync(python, ['-c', 'import openai']).status === 0;
}

function prepareModels(dir) {
  mkdirSync(dir, { recursive: true });
  for (const [name, args] of Object.entries(MODELS)) {
    const path = join(dir, `${name}.gguf`);
    const argsFile = join(dir, `${name}.args`);
    if (existsSync(path) && existsSync(argsFile) && readFileSync(argsFile, 'utf8') === args.join(' ')) continue;
    const r = spawnSync(process.execPath, [join(root, 'bin', 'ramforge.mjs'), 'synth', '--quiet', ...args, '--out', path], { stdio: 'inherit' });
    if (r.status !== 0) fail(`ramforge synth failed for ${name}`);
    writeFileSync(argsFile, args.join(' '));
  }
}


async function main() {
  const o = options(process.argv.slice(2));
  // The test asks which Python the suite would use (to skip where it lacks the modules).
  if (o.which) return void process.stdout.write(o.python + '\n');
  if (o.tables) return void process.stdout.write(knownTables(JSON.parse(readFileSync(join(suiteDir, 'known.json'), 'utf8'))));
  const { sourceDir } = await import(pathToFileURL(join(root, 'scripts', 'llama-cpp.mjs')).href);
  const testsDir = join(sourceDir(), 'tools', 'server', 'tests');
  if (!existsSync(join(testsDir, 'utils.py'))) fail(`no llama.cpp server tests at ${testsDir} (run node scripts/ensure.mjs)`);
  const hasOpenai = checkPython(o.python);
  mkdirSync(o.out, { recursive: true });
  const models = join(o.out, 'models');
  prepareModels(models);
  const junit = join(o.out, 'junit.xml');
  const paths = [suiteDir, ...(hasOpenai ? [] : [join(suiteDir, 'openai-absent')]), testsDir];
  const files = o.files.length ? o.files.map((f) => join('unit', f)) : ['unit'];
  const started = Date.now();
  // The suite runs where the pinned source has it (its templates are read by relative paths);
  // no cache and no bytecode are written there.
  spawnSync(o.python, ['-m', 'pytest', '-p', 'ramforge_start', '-p', 'no:cacheprovider', '-m', 'not slow', '-q', '-rN', '--tb=line', '--show-capture=no', '--continue-on-collection-errors', `--junitxml=${junit}`, ...files], {
    cwd: testsDir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PYTHONPATH: paths.join(':'), PYTHONDONTWRITEBYTECODE: '1', RAMFORGE_ROOT: root, RAMFORGE_SUITE_MODELS: models, RAMFORGE_NODE: process.execPath, PORT: String(await freePort()) },
  });
  if (!existsSync(junit)) fail('pytest wrote no results');
  const known = JSON.parse(readFileSync(join(suiteDir, 'known.json'), 'utf8'));
  const rows = classify(parseJunit(readFileSync(junit, 'utf8')), known, hasOpenai);
  const summary = { seconds: Math.round((Date.now() - started) / 1000), openai: hasOpenai, ...summarize(rows) };
  writeFileSync(join(o.out, 'results.json'), JSON.stringify({ summary, tests: rows }, null, 2) + '\n');
  writeFileSync(join(o.out, 'results.md'), markdown(rows, summary));
  const unexpected = rows.filter((r) => r.outcome === 'failed' && r.class === 'unexpected');
  process.stdout.write(`llama-server-suite: ${summary.passed} passed, ${summary.failed} failed (${unexpected.length} not on the known list), ${summary.skipped} skipped in ${summary.seconds} s; tables in ${o.out}\n`);
  for (const r of unexpected) process.stdout.write(`  unexpected failure: ${r.id}: ${r.message}\n`);
  process.exit(unexpected.length ? 1 : 0);
}

await main();
