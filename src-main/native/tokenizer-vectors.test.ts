// Our binding's tokenizer against llama.cpp's own test vectors (models/ggml-vocab-*.gguf with
// .inp/.out), exactly as tests/test-tokenizer-0.cpp reads them: no special tokens added.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vocabDir } from '../node/paths.js';
import { loadAddon } from './addon.js';

const SEP = '\n__ggml_vocab_test__\n';

function vectors(base: string): { text: string; ids: number[] }[] {
  const raw = readFileSync(`${base}.inp`, 'utf8');
  const inputs: string[] = [];
  let pos = 0;
  while (pos < raw.length) {
    const next = raw.indexOf(SEP, pos);
    if (next < 0) {
      inputs.push(raw.slice(pos));
      break;
    }
    inputs.push(raw.slice(pos, next));
    pos = next + SEP.length;
  }
  const outs = readFileSync(`${base}.out`, 'utf8').split('\n');
  if (outs[outs.length - 1] === '') outs.pop();
  expect(outs.length).toBe(inputs.length);
  return inputs.map((text, i) => {
    const o = (outs[i] as string).trim();
    return { text, ids: o === '' ? [] : o.split(' ').map(Number) };
  });
}

const dir = vocabDir();
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.gguf') && existsSync(join(dir, `${f}.inp`))) : [];

describe('tokenizer matches llama.cpp test vectors', () => {
  it('finds the vocab test files in the pinned llama.cpp source', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s', async (file) => {
    const base = join(dir, file);
    const model = await loadAddon().loadModel([base], { vocabOnly: true });
    try {
      const cases = vectors(base);
      let mismatches = 0;
      for (const c of cases) {
        const got = Array.from(model.tokenize(c.text, false, false));
        if (JSON.stringify(got) !== JSON.stringify(c.ids)) {
          mismatches++;
          console.log(`${file}: ${JSON.stringify(c.text)} → ${JSON.stringify(got)}, expected ${JSON.stringify(c.ids)}`);
        }
      }
      expect(mismatches).toBe(0);
      expect(cases.length).toBeGreaterThan(0);
    } finally {
      model.free();
    }
  });
});
