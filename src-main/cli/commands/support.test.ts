import { describe, expect, it } from 'vitest';
import { command as support } from './support.js';
import { runCommand } from './run-command.test-util.js';
import { GGML_TYPES } from '../../shared/gguf/ggml-types.js';
import type { ArchCapability, TensorTypeCapability } from '../../shared/capabilities.js';

describe('ramforge support', () => {
  it('--json lists our architectures with evidence, delegated ones, and every tensor type', async () => {
    const { code, stdout } = await runCommand(support, ['--json']);
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as { schemaVersion: number; architectures: ArchCapability[]; tensorTypes: TensorTypeCapability[] };
    expect(r.schemaVersion).toBe(1);
    const byName = new Map(r.architectures.map((a) => [a.name, a]));
    for (const a of ['llama', 'qwen2', 'gptneox']) {
      expect(byName.get(a)?.inspect).toBe('tested');
      expect(byName.get(a)?.plan).toBe('tested');
      expect(byName.get(a)?.run).toBe('native-tests');
      expect(byName.get(a)?.requiredTensorsChecked).toBe(true);
    }
    for (const a of ['qwen3moe', 'qwen2moe', 'gpt-oss', 'deepseek2', 'glm4moe', 'qwen35moe', 'gemma4']) {
      expect(byName.get(a)?.inspect).toBe('tested');
      expect(byName.get(a)?.run).toBe('tested');
      expect(byName.get(a)?.stream).toBe('tested');
      expect(byName.get(a)?.requiredTensorsChecked).toBe(true);
    }
    expect(byName.get('gpt-oss')?.evidence.join(' ')).toMatch(/MXFP4 expert slices, per-expert biases/);
    expect(byName.get('deepseek2')?.evidence.join(' ')).toMatch(/MLA, a leading dense layer, a shared expert/);
    expect(byName.get('qwen35moe')?.evidence.join(' ')).toMatch(/fused ffn_gate_up_exps, delta-net/);
    expect(byName.get('gemma4')?.evidence.join(' ')).toMatch(/per-expert output scales picked by expert id/);
    expect(r.architectures.filter((a) => a.name === 'qwen3moe')).toHaveLength(1);
    expect(r.architectures.filter((a) => a.name === 'gemma4')).toHaveLength(1);
    expect(byName.get('gemma3')?.run).toBe('delegated');
    expect(r.tensorTypes.map((t) => t.name)).toEqual(GGML_TYPES.map((t) => t.name));
    expect(r.tensorTypes.filter((t) => t.synth).map((t) => t.name).sort()).toEqual(['F16', 'F32', 'MXFP4', 'Q4_0', 'Q4_K', 'Q8_0']);
    expect(r.tensorTypes.find((t) => t.name === 'Q4_0')?.bitsPerWeight).toBe(4.5);
  });

  it('human view has both tables and the legend', async () => {
    const { stdout } = await runCommand(support, []);
    expect(stdout).toMatch(/llama +tested +tested +native-tests +native-tests/);
    expect(stdout).toMatch(/Q4_K +12 +256 +144 +4\.5 +yes/);
    expect(stdout).toMatch(/delegated = llama\.cpp implements it/);
  });
});
