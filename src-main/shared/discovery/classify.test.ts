import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView } from '../gguf/model-view.js';
import { GgufValueType as V } from '../gguf/ggml-types.js';
import { buildGguf } from '../gguf/build-gguf.test-util.js';
import { tinyModel } from '../gguf/tiny-models.test-util.js';
import { loraGguf, projectorGguf, vocabOnlyGguf } from '../../node/discovery/fake-home.test-util.js';
import { classifyModel, mainQuantization } from './classify.js';

function classify(bytes: Uint8Array) {
  const header = parseGgufHeader(bytes, bytes.length);
  const view = buildModelView([{ path: 'x', header }]);
  return { ...classifyModel(view, header), quant: mainQuantization(view) };
}

describe('what kind of GGUF a file is', () => {
  it('chat models of known architectures', () => {
    expect(classify(tinyModel({ arch: 'qwen2', matType: 8 }))).toMatchObject({ kind: 'model', chat: true, reason: null, quant: 'Q8_0' });
  });
  it('LoRA adapters (general.type = adapter)', () => {
    expect(classify(loraGguf())).toMatchObject({ kind: 'adapter', chat: false, reason: expect.stringMatching(/LoRA adapter for llama/) });
  });
  it('projectors (clip architecture, general.type = mmproj)', () => {
    expect(classify(projectorGguf())).toMatchObject({ kind: 'projector', chat: false });
  });
  it('vocab-only files', () => {
    expect(classify(vocabOnlyGguf())).toMatchObject({ kind: 'vocab-only', chat: false });
  });
  it('embedding models and unknown architectures', () => {
    const bert = buildGguf({ kv: [{ key: 'general.architecture', type: V.STRING, value: 'bert' }], tensors: [{ name: 'token_embd.weight', dims: [4, 4], type: 0 }] }).bytes;
    expect(classify(bert)).toMatchObject({ kind: 'embedding', chat: false });
    const odd = buildGguf({ kv: [{ key: 'general.architecture', type: V.STRING, value: 'no-such-arch' }], tensors: [{ name: 'w', dims: [4], type: 0 }] }).bytes;
    expect(classify(odd)).toMatchObject({ kind: 'unsupported', chat: false, reason: "architecture 'no-such-arch' is not known to the pinned llama.cpp" });
  });
});
