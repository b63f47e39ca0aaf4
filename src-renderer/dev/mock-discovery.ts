// DEV ONLY: what `ramforge models --json` answers on a machine with a few models, for
// screenshots of the sidebar's discovered-models list without a backend.
export function mockDiscovery(ramBytes: number | null, folders: string[]): unknown {
  const ram = ramBytes ?? 16 * 1024 ** 3;
  const model = (source: string, name: string, bytes: number, arch: string, quant: string, params: number) => {
    const verdict = bytes < ram * 0.8 ? 'fits' : bytes < ram * 4 ? 'out-of-core' : 'cannot-run';
    return {
      source, root: `/home/me/${source}`, name, path: `/home/me/${source}/${name}`, files: [`/home/me/${source}/${name}`], fileBytes: bytes,
      kind: 'model', chat: true, reason: null, architecture: arch, modelName: name, parameterCount: params, quantization: quant, contextLength: 8192,
      plan: { verdict, reason: '', ctx: 4096, ramUsedBytes: Math.min(bytes, ram), minimumRamBytes: bytes / 8, fullResidencyRamBytes: bytes * 1.1, bytesReadPerToken: verdict === 'fits' ? 0 : bytes - ram * 0.7, predictedDecodeTokS: verdict === 'fits' ? 12 : 0.6 },
      planError: null,
    };
  };
  return {
    schemaVersion: 1,
    budget: { ramBytes: ram, ramSource: '--ram', diskBandwidthSource: 'cached' },
    roots: [
      { source: 'ollama', path: '/home/me/.ollama/models', present: true },
      { source: 'lmstudio', path: '/home/me/.lmstudio/models', present: true },
      { source: 'huggingface', path: '/home/me/.cache/huggingface/hub', present: true },
    ],
    models: [
      model('ollama', 'llama3.1:8b', 4.9e9, 'llama', 'Q4_K', 8.0e9),
      model('ollama', 'qwen2.5:32b', 19.9e9, 'qwen2', 'Q4_K', 32.8e9),
      model('lmstudio', 'lmstudio-community/Meta-Llama-3.1-70B-Instruct-GGUF/Meta-Llama-3.1-70B-Instruct-Q4_K_M (2 shards)', 42.5e9, 'llama', 'Q4_K', 70.6e9),
      { ...model('huggingface', 'ggml-org/llava/mmproj-f16.gguf', 0.6e9, 'clip', 'F16', 0.3e9), kind: 'projector', chat: false, reason: 'a multimodal projector (mmproj)', plan: null },
      { ...model('huggingface', 'someone/broken/model.gguf', 1e9, 'llama', 'Q8_0', 1e9), kind: 'unreadable', chat: false, reason: "not a GGUF file: magic is 'vers', expected 'GGUF' (at byte offset 0)", plan: null },
    ],
    folders,
  };
}
