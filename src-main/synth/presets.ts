// Preset shapes per architecture. The larger ones copy real models (Llama 3.2 1B/3B, Llama 3 8B,
// Qwen2.5 1.5B/3B, Qwen2 7B, Pythia 410M/1.4B/2.8B/6.9B, GPT-NeoX-20B); tiny and small are
// scaled down; the llama and qwen2 20b rows are 20B-class shapes (11-12 GB at Q4_0) for
// out-of-core runs at desktop caps. The mixture-of-experts rows: qwen3moe's 30b-a3b copies
// Qwen3-30B-A3B (48 layers, 128 experts of which 8 route, expert width 768, head size 128 on a
// 2048-wide stream); its tiny and small rows and qwen2moe's (a shared expert beside the routed
// ones, as in Qwen1.5-MoE) are scaled down. Every dense, qwen3moe and qwen2moe
// width is a multiple of 256 so that Q4_K (256-element super-blocks) applies to every matrix.
import type { ArchName, ModelShape, PresetName } from './shape.js';

type MoeFields = 'headDim' | 'nExpert' | 'nExpertUsed' | 'nFfExp' | 'nFfShexp';
type Row = Omit<ModelShape, 'ropeDim' | 'routerSkew' | MoeFields> & Partial<Pick<ModelShape, MoeFields>>;

type DensePreset = 'tiny' | 'small' | '1b' | '3b' | '8b' | '20b';

const LLAMA: Record<DensePreset, Row> = {
  tiny: { nEmbd: 256, nLayer: 2, nHead: 4, nHeadKv: 2, nFf: 512, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  small: { nEmbd: 1024, nLayer: 16, nHead: 16, nHeadKv: 4, nFf: 2816, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  '1b': { nEmbd: 2048, nLayer: 16, nHead: 32, nHeadKv: 8, nFf: 8192, nCtxTrain: 131072, tieEmbeddings: false, ropeFreqBase: 500000, normEps: 1e-5 },
  '3b': { nEmbd: 3072, nLayer: 28, nHead: 24, nHeadKv: 8, nFf: 8192, nCtxTrain: 131072, tieEmbeddings: false, ropeFreqBase: 500000, normEps: 1e-5 },
  '8b': { nEmbd: 4096, nLayer: 32, nHead: 32, nHeadKv: 8, nFf: 14336, nCtxTrain: 8192, tieEmbeddings: false, ropeFreqBase: 500000, normEps: 1e-5 },
  '20b': { nEmbd: 6144, nLayer: 48, nHead: 48, nHeadKv: 8, nFf: 16384, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-5 },
};

const QWEN2: Record<DensePreset, Row> = {
  tiny: { nEmbd: 256, nLayer: 2, nHead: 4, nHeadKv: 2, nFf: 512, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  small: { nEmbd: 1024, nLayer: 16, nHead: 16, nHeadKv: 2, nFf: 2816, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  '1b': { nEmbd: 1536, nLayer: 28, nHead: 12, nHeadKv: 2, nFf: 8960, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  '3b': { nEmbd: 2048, nLayer: 36, nHead: 16, nHeadKv: 2, nFf: 11008, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  '8b': { nEmbd: 3584, nLayer: 28, nHead: 28, nHeadKv: 4, nFf: 18944, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  '20b': { nEmbd: 5120, nLayer: 56, nHead: 40, nHeadKv: 8, nFf: 13824, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
};

const GPTNEOX: Record<DensePreset, Row> = {
  tiny: { nEmbd: 256, nLayer: 2, nHead: 4, nHeadKv: 4, nFf: 1024, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  small: { nEmbd: 1024, nLayer: 24, nHead: 16, nHeadKv: 16, nFf: 4096, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  '1b': { nEmbd: 2048, nLayer: 24, nHead: 16, nHeadKv: 16, nFf: 8192, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  '3b': { nEmbd: 2560, nLayer: 32, nHead: 32, nHeadKv: 32, nFf: 10240, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  '8b': { nEmbd: 4096, nLayer: 32, nHead: 32, nHeadKv: 32, nFf: 16384, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
  '20b': { nEmbd: 6144, nLayer: 44, nHead: 64, nHeadKv: 64, nFf: 24576, nCtxTrain: 2048, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-5 },
};

const QWEN3MOE: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 2, nHead: 4, nHeadKv: 2, headDim: 128, nFf: 768, nExpert: 8, nExpertUsed: 2, nFfExp: 256, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  small: { nEmbd: 1024, nLayer: 12, nHead: 16, nHeadKv: 4, headDim: 64, nFf: 3072, nExpert: 32, nExpertUsed: 4, nFfExp: 512, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  '30b-a3b': { nEmbd: 2048, nLayer: 48, nHead: 32, nHeadKv: 4, headDim: 128, nFf: 6144, nExpert: 128, nExpertUsed: 8, nFfExp: 768, nCtxTrain: 40960, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
};

const QWEN2MOE: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 2, nHead: 4, nHeadKv: 4, nFf: 512, nExpert: 8, nExpertUsed: 2, nFfExp: 256, nFfShexp: 512, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  small: { nEmbd: 1024, nLayer: 12, nHead: 16, nHeadKv: 16, nFf: 2816, nExpert: 16, nExpertUsed: 4, nFfExp: 512, nFfShexp: 2048, nCtxTrain: 8192, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
};

// gpt-oss-20b and -120b (24 and 36 layers of 32 and 128 experts, 4 used, 2880 wide, 64 heads of
// 64 with 8 KV heads, a 128-token window on every other layer); tiny scaled down.
const GPT_OSS: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 2, nHead: 8, nHeadKv: 2, headDim: 64, nFf: 256, nExpert: 8, nExpertUsed: 2, nFfExp: 256, slidingWindow: 64, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 150000, normEps: 1e-5 },
  small: { nEmbd: 1024, nLayer: 16, nHead: 16, nHeadKv: 4, headDim: 64, nFf: 1024, nExpert: 32, nExpertUsed: 4, nFfExp: 1024, slidingWindow: 128, nCtxTrain: 8192, tieEmbeddings: false, ropeFreqBase: 150000, normEps: 1e-5 },
  '20b': { nEmbd: 2880, nLayer: 24, nHead: 64, nHeadKv: 8, headDim: 64, nFf: 2880, nExpert: 32, nExpertUsed: 4, nFfExp: 2880, slidingWindow: 128, nCtxTrain: 131072, tieEmbeddings: false, ropeFreqBase: 150000, normEps: 1e-5 },
  '120b': { nEmbd: 2880, nLayer: 36, nHead: 64, nHeadKv: 8, headDim: 64, nFf: 2880, nExpert: 128, nExpertUsed: 4, nFfExp: 2880, slidingWindow: 128, nCtxTrain: 131072, tieEmbeddings: false, ropeFreqBase: 150000, normEps: 1e-5 },
};

// DeepSeek-V2-Lite (27 layers, the first dense; 64 experts, 6 used, 2 shared; plain Q, KV latent
// 512) and a V3-layout model: V3's widths (7168, 128 heads, Q latent 1536, 256 experts of 2048,
// 8 used, 1 shared, 8 groups of which 4 are searched) on 3 layers, the first dense, so it fits a
// desktop disk (about 15 GB at Q4_0). MLA keeps one KV "head" (head_count_kv 1). Tiny is V3's
// layout scaled down.
const DEEPSEEK2: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 3, nHead: 4, nHeadKv: 1, headDim: 96, nFf: 768, nExpert: 16, nExpertUsed: 4, nFfExp: 256, nExpertShared: 1, nLeadingDense: 1, nExpertGroups: 4, nGroupUsed: 2, mla: { qLoraRank: 256, kvLoraRank: 256, ropeDim: 32, nopeDim: 64, vDim: 64 }, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-6 },
  small: { nEmbd: 1024, nLayer: 8, nHead: 8, nHeadKv: 1, headDim: 192, nFf: 2816, nExpert: 64, nExpertUsed: 6, nFfExp: 1024, nExpertShared: 1, nLeadingDense: 1, nExpertGroups: 8, nGroupUsed: 4, mla: { qLoraRank: 256, kvLoraRank: 256, ropeDim: 64, nopeDim: 128, vDim: 128 }, nCtxTrain: 8192, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-6 },
  'v2-lite': { nEmbd: 2048, nLayer: 27, nHead: 16, nHeadKv: 1, headDim: 192, nFf: 10944, nExpert: 64, nExpertUsed: 6, nFfExp: 1408, nExpertShared: 2, nLeadingDense: 1, mla: { qLoraRank: 0, kvLoraRank: 512, ropeDim: 64, nopeDim: 128, vDim: 128 }, nCtxTrain: 163840, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-6 },
  v3: { nEmbd: 7168, nLayer: 3, nHead: 128, nHeadKv: 1, headDim: 192, nFf: 18432, nExpert: 256, nExpertUsed: 8, nFfExp: 2048, nExpertShared: 1, nLeadingDense: 1, nExpertGroups: 8, nGroupUsed: 4, mla: { qLoraRank: 1536, kvLoraRank: 512, ropeDim: 64, nopeDim: 128, vDim: 128 }, nCtxTrain: 163840, tieEmbeddings: false, ropeFreqBase: 10000, normEps: 1e-6 },
};

// GLM-4.5-Air (46 layers, the first dense; 128 experts of 1408, 8 used, 1 shared; 96 heads of
// 128 on a 4096-wide stream, 8 KV heads, half of each head roped); tiny scaled down.
const GLM4MOE: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 3, nHead: 4, nHeadKv: 2, headDim: 64, nFf: 768, nExpert: 8, nExpertUsed: 2, nFfExp: 256, nExpertShared: 1, nLeadingDense: 1, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-5 },
  small: { nEmbd: 1024, nLayer: 9, nHead: 8, nHeadKv: 2, headDim: 128, nFf: 2816, nExpert: 64, nExpertUsed: 4, nFfExp: 1024, nExpertShared: 1, nLeadingDense: 1, nCtxTrain: 8192, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-5 },
  air: { nEmbd: 4096, nLayer: 46, nHead: 96, nHeadKv: 8, headDim: 128, nFf: 10944, nExpert: 128, nExpertUsed: 8, nFfExp: 1408, nExpertShared: 1, nLeadingDense: 1, nCtxTrain: 131072, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-5 },
};

// Qwen3.5-35B-A3B (40 layers, every 4th full attention: 16 heads of 256, 2 KV heads, a quarter
// of each head roped; the others a gated delta net of 16 key and 32 value heads of 128; 256
// experts of 512, 8 used, one shared expert of 512, on a 2048-wide stream); tiny and small
// scaled down with the same proportions (one layer in four full attention).
const QWEN35MOE: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 4, nHead: 4, nHeadKv: 2, headDim: 64, nFf: 256, nExpert: 8, nExpertUsed: 2, nFfExp: 256, nFfShexp: 256, linearAttn: { convKernel: 4, stateSize: 64, nKHeads: 2, nVHeads: 4, fullAttnInterval: 4 }, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 10000000, normEps: 1e-6 },
  small: { nEmbd: 1024, nLayer: 14, nHead: 8, nHeadKv: 2, headDim: 128, nFf: 512, nExpert: 64, nExpertUsed: 8, nFfExp: 512, nFfShexp: 512, linearAttn: { convKernel: 4, stateSize: 128, nKHeads: 4, nVHeads: 8, fullAttnInterval: 4 }, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 10000000, normEps: 1e-6 },
  '35b-a3b': { nEmbd: 2048, nLayer: 40, nHead: 16, nHeadKv: 2, headDim: 256, nFf: 512, nExpert: 256, nExpertUsed: 8, nFfExp: 512, nFfShexp: 512, linearAttn: { convKernel: 4, stateSize: 128, nKHeads: 16, nVHeads: 32, fullAttnInterval: 4 }, nCtxTrain: 262144, tieEmbeddings: false, ropeFreqBase: 10000000, normEps: 1e-6 },
};

// Gemma 4 26B-A4B (30 layers, every 6th full attention with 512-wide heads and 2 KV heads, the
// others a 1024-token window with 256-wide heads and 8 KV heads; 16 query heads on a 2816-wide
// stream; a dense MLP of 2112 beside 128 experts of 704, 8 used; tied embeddings, logits
// soft-capped at 30); tiny and small scaled down, with a head of their own (a tied head of random
// weights repeats the prompt's last token, see plan.ts).
const GEMMA4: Partial<Record<PresetName, Row>> = {
  tiny: { nEmbd: 256, nLayer: 3, nHead: 4, nHeadKv: 2, headDim: 64, nFf: 512, nExpert: 8, nExpertUsed: 2, nFfExp: 256, iswa: { slidingWindow: 64, fullEvery: 3, headDimFull: 128, nHeadKvFull: 1, ropeFreqBaseSwa: 10000, finalLogitSoftcap: 30 }, nCtxTrain: 4096, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  small: { nEmbd: 1024, nLayer: 14, nHead: 8, nHeadKv: 4, headDim: 128, nFf: 1024, nExpert: 64, nExpertUsed: 8, nFfExp: 512, iswa: { slidingWindow: 512, fullEvery: 6, headDimFull: 256, nHeadKvFull: 2, ropeFreqBaseSwa: 10000, finalLogitSoftcap: 30 }, nCtxTrain: 32768, tieEmbeddings: false, ropeFreqBase: 1000000, normEps: 1e-6 },
  '26b-a4b': { nEmbd: 2816, nLayer: 30, nHead: 16, nHeadKv: 8, headDim: 256, nFf: 2112, nExpert: 128, nExpertUsed: 8, nFfExp: 704, iswa: { slidingWindow: 1024, fullEvery: 6, headDimFull: 512, nHeadKvFull: 2, ropeFreqBaseSwa: 10000, finalLogitSoftcap: 30 }, nCtxTrain: 262144, tieEmbeddings: true, ropeFreqBase: 1000000, normEps: 1e-6 },
};

export const PRESET_TABLE: Record<ArchName, Partial<Record<PresetName, Row>>> = {
  llama: LLAMA,
  qwen2: QWEN2,
  gptneox: GPTNEOX,
  qwen3moe: QWEN3MOE,
  qwen2moe: QWEN2MOE,
  'gpt-oss': GPT_OSS,
  deepseek2: DEEPSEEK2,
  glm4moe: GLM4MOE,
  qwen35moe: QWEN35MOE,
  gemma4: GEMMA4,
};

/** The vocab file (models/ggml-vocab-NAME.gguf) each architecture and preset uses by default. */
export function defaultVocab(arch: ArchName, preset: PresetName): string {
  // gpt-oss's o200k and GLM's tokenizers ship no vocab file here: Qwen2's 152k BPE is the nearest in size.
  // Their small rows take the 32k vocab, so that the experts, not the embeddings, fill the file.
  if ((arch === 'gpt-oss' || arch === 'glm4moe' || arch === 'qwen35moe' || arch === 'gemma4') && preset === 'small') return 'llama-spm';
  // Qwen3.5's and Gemma 4's own tokenizers (248k and 262k tokens) ship with the pinned source.
  if (arch === 'qwen35moe') return 'qwen35';
  if (arch === 'gemma4') return 'gemma-4';
  if (arch === 'qwen2' || arch === 'qwen3moe' || arch === 'qwen2moe' || arch === 'gpt-oss' || arch === 'glm4moe') return 'qwen2';
  if (arch === 'deepseek2') return 'deepseek-llm';
  if (arch === 'gptneox') return 'gpt-neox';
  // Llama 3 shapes get Llama 3's 128k BPE vocab; the small ones the 32k SentencePiece vocab.
  return preset === 'tiny' || preset === 'small' ? 'llama-spm' : 'llama-bpe';
}
