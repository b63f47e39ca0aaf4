// Synthetic models for the e2e suite, made with `ramforge synth` and cached between runs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from './env.js';

const CACHE = join(tmpdir(), 'ramforge-e2e-models');

export function synthModel(preset: 'tiny' | 'small' | '1b', type = 'Q4_0'): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, `e2e-llama-${preset}-${type.toLowerCase()}.gguf`);
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [CLI, 'synth', '--arch', 'llama', '--preset', preset, '--type', type, '--seed', '7', '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ramforge synth failed (${r.status}): ${r.stderr}`);
  return out;
}

/** A mixture of experts in the Mixtral layout: 8 layers of 8 experts, 2 routed a token (~345 MiB). */
export function synthMoeModel(): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, 'e2e-llama-moe-8x8-q4_0.gguf');
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [CLI, 'synth', '--arch', 'llama', '--preset', 'small', '--experts', '8', '--layers', '8', '--seed', '7', '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ramforge synth failed (${r.status}): ${r.stderr}`);
  return out;
}

/**
 * A mixture of experts whose experts outweigh the rest (Mixtral layout, 8 layers of 16 experts
 * 6144 wide, 2 routed a token, ~335 MiB): under 250 MiB of RAM and 190 MiB of VRAM the expert
 * cache runs with a VRAM tier (as src-main/cli/commands/gpu-experts.test.ts).
 */
export function synthVramTierMoeModel(): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, 'e2e-llama-moe-8x16-ff6144-q4_0.gguf');
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [CLI, 'synth', '--arch', 'llama', '--preset', 'tiny', '--layers', '8', '--experts', '16', '--experts-used', '2', '--ff', '6144', '--seed', '7', '--quiet', '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ramforge synth failed (${r.status}): ${r.stderr}`);
  return out;
}

/** A mixture of experts of the published gemma-4 routing trace's shape: 30 MoE layers of 128 experts, 6 routed a token (~159 MiB). */
export function synthTraceShapedMoeModel(): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, 'e2e-qwen3moe-30x128-top6.gguf');
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [CLI, 'synth', '--arch', 'qwen3moe', '--preset', 'tiny', '--layers', '30', '--experts', '128', '--experts-used', '6', '--expert-ff', '64', '--quiet', '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ramforge synth failed (${r.status}): ${r.stderr}`);
  return out;
}

/** A base model: the tiny preset with no chat template (tokenizer.chat_template absent), as most base models ship. */
export function synthBaseModel(): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, 'e2e-llama-tiny-base-q4_0.gguf');
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [CLI, 'synth', '--arch', 'llama', '--preset', 'tiny', '--type', 'Q4_0', '--seed', '7', '--no-chat-template', '--name', 'e2e-base-model', '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ramforge synth failed (${r.status}): ${r.stderr}`);
  return out;
}

/** A draft for speculative decoding: `synth --draft-of TARGET --layers N` (the target's own first N layers). */
export function synthDraftOf(target: string, layers: number): string {
  const out = target.replace(/\.gguf$/, `-draft${layers}.gguf`);
  if (existsSync(out)) return out;
  const r = spawnSync(process.execPath, [CLI, 'synth', '--draft-of', target, '--layers', String(layers), '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ramforge synth --draft-of failed (${r.status}): ${r.stderr}`);
  return out;
}

/** A file that is not a GGUF model at all. */
export function malformedModel(): string {
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, 'malformed.gguf');
  writeFileSync(out, Buffer.from('this is not a GGUF file, just some text pretending to be one\n'.repeat(20)));
  return out;
}
