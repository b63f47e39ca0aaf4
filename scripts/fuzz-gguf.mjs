#!/usr/bin/env node
// Dedicated GGUF reader fuzzer: mutates valid llama/qwen2/gptneox headers and parses each
// result. Passes when every input either parses or is rejected with a GgufError (no other
// exception) and no parse takes longer than --slow-ms. The TypeScript sources are bundled in
// memory with esbuild, so no TS runner is needed.
//   node scripts/fuzz-gguf.mjs [--iterations 100000] [--seed 1] [--slow-ms 1000]
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const iterations = arg('iterations', 100_000);
const seed = arg('seed', 1);
const slowMs = arg('slow-ms', 1000);
if (!(iterations > 0) || !Number.isFinite(seed)) {
  console.error('usage: node scripts/fuzz-gguf.mjs [--iterations N] [--seed S] [--slow-ms MS]');
  process.exit(2);
}

const out = await build({
  absWorkingDir: root,
  entryPoints: ['src-main/shared/gguf/fuzz.test-util.ts'],
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  write: false,
  logLevel: 'warning',
});
const mod = await import('data:text/javascript;base64,' + Buffer.from(out.outputFiles[0].text).toString('base64'));

const t0 = performance.now();
const heap0 = process.memoryUsage().heapUsed;
const r = mod.runFuzz(iterations, seed, slowMs);
const secs = (performance.now() - t0) / 1000;
const codes = Object.entries(r.codes).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(', ');
console.log(`fuzz-gguf: ${r.iterations} inputs (seed ${seed}) in ${secs.toFixed(1)} s: ${r.parsed} parsed, ${r.rejected} rejected with GgufError`);
console.log(`  rejection codes: ${codes}`);
console.log(`  slowest parse ${r.slowestMs.toFixed(1)} ms; heap grew ${((process.memoryUsage().heapUsed - heap0) / 1048576).toFixed(1)} MiB`);
if (r.crashes.length > 0) {
  console.error(`FAIL: ${r.crashes.length} crash(es) or slow parse(s):`);
  for (const c of r.crashes) console.error(`  #${c.iteration}: ${c.error}\n    input: ${c.bytesHex.slice(0, 200)}…`);
  process.exit(1);
}
console.log('PASS: zero crashes, zero hangs');
