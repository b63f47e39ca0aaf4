// `ramforge synth` + `ramforge run` against llama.cpp's own llama-simple built from the same
// pinned source: greedy decoding must produce the same tokens, for each architecture and type,
// dense and mixture of experts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { llamaTool, runCli } from './built-cli.test-util.js';
import { loadAddon, type NativeModel } from '../native/addon.js';

const PROMPT = 'Once upon a time';
let dir = '';
let simple = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-parity-'));
  simple = llamaTool('llama-simple');
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What llama-simple prints: every prompt and generated token's piece (special tokens shown). */
function pieces(model: NativeModel, ids: number[]): Buffer {
  return Buffer.concat(ids.map((id) => model.tokenToPiece(id, true)));
}

const CASES: [string, string][] = [
  ['llama', 'Q4_0'],
  ['qwen2', 'Q4_0'],
  ['gptneox', 'Q4_0'],
  ['llama', 'Q8_0'],
  ['llama', 'Q4_K'],
  ['llama', 'F16'],
  ['qwen2', 'Q4_K'],
  ['gptneox', 'F16'],
];

// Mixtures of experts in each layout synth writes: the Mixtral layout (llama with experts),
// qwen3moe, and qwen2moe with its shared expert; routers F32 beside quantized experts.
const MOE_CASES: [string, string, string[]][] = [
  ['llama', 'Q4_0', ['--experts', '4', '--experts-used', '2']],
  ['qwen3moe', 'Q4_0', []],
  ['qwen2moe', 'Q4_0', []],
  ['llama', 'F16', ['--experts', '8', '--experts-used', '3']],
  ['qwen3moe', 'F32', []],
  ['qwen2moe', 'Q8_0', []],
];

// The MoE families people run beyond their memory, each at its native types: gpt-oss's MXFP4
// experts (per-expert biases, attention sinks, a sliding window), deepseek2's MLA with a leading
// dense layer, shared experts and grouped routing, glm4moe's shared expert and selection bias,
// qwen35moe's delta-net layers and fused gate_up experts, gemma4's sliding and full layers with
// fused gate_up experts and per-expert output scales.
const FAMILY_CASES: [string, string][] = [
  ['gpt-oss', 'MXFP4'],
  ['deepseek2', 'Q4_0'],
  ['glm4moe', 'Q4_0'],
  ['deepseek2', 'Q8_0'],
  ['qwen35moe', 'Q4_0'],
  ['gemma4', 'Q4_0'],
  ['qwen35moe', 'Q8_0'],
  ['gemma4', 'Q8_0'],
];

async function expectParity(name: string, synthArgs: string[]): Promise<void> {
  const model = join(dir, `${name}.gguf`);
  const tokensJson = join(dir, `${name}.json`);
  const s = runCli(['synth', ...synthArgs, '--preset', 'tiny', '--seed', '3', '--out', model]);
  expect(s.code, s.stderr).toBe(0);
  const r = runCli(['run', model, '--prompt', PROMPT, '--max-tokens', '16', '--temperature', '0', '--ctx', '256', '--tokens-json', tokensJson, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  const ours = JSON.parse(readFileSync(tokensJson, 'utf8')) as { prompt_token_ids: number[]; token_ids: number[] };
  expect(ours.token_ids.length).toBeGreaterThan(0);

  const ref = spawnSync(simple, ['-m', model, '-n', '16', PROMPT], { encoding: 'buffer', timeout: 120_000 });
  expect(ref.status, ref.stderr.toString()).toBe(0);
  const m = await loadAddon().loadModel([model], { vocabOnly: true });
  try {
    const expected = Buffer.concat([pieces(m, ours.prompt_token_ids), pieces(m, ours.token_ids), Buffer.from('\n')]);
    expect(ref.stdout.toString('latin1')).toBe(expected.toString('latin1'));
  } finally {
    m.free();
  }
}

describe('greedy tokens equal llama.cpp llama-simple', () => {
  it.each(CASES)('%s %s', async (arch, type) => {
    await expectParity(`${arch}-${type}`, ['--arch', arch, '--type', type]);
  });

  it.each(MOE_CASES)('mixture of experts: %s %s %j', async (arch, type, extra) => {
    await expectParity(`moe-${arch}-${type}`, ['--arch', arch, '--type', type, ...extra]);
  });

  it.each(FAMILY_CASES)('MoE family: %s %s', async (arch, type) => {
    await expectParity(`family-${arch}-${type}`, ['--arch', arch, '--type', type]);
  });
});
