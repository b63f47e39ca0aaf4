// `ramforge synth`: write a synthetic GGUF of a real architecture with a real tokenizer and
// random weights (see src-main/synth/).
import { readFile } from 'node:fs/promises';
import { typedFlags, type CommandSpec, type FlagSpec, type ParsedArgs } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { MAX_TEMPLATE_CHARS } from '../../worker/tool-template.js';
import { formatBytes } from '../../shared/size.js';
import { synthesize } from '../../synth/synthesize.js';
import { progressBar } from '../../synth/progress-bar.js';
import { writeDraftOf } from '../../synth/draft-of.js';
import { DraftSubsetError } from '../../shared/draft/draft-subset.js';
import { GgufError } from '../../shared/gguf/reader.js';
import { ARCHS, PRESETS, type ShapeOverrides, SynthInputError, WEIGHT_TYPES } from '../../synth/shape.js';
import { DEFAULT_ROUTER_SKEW } from '../../shared/moe/routing-model.js';

function intFlag(args: ParsedArgs, name: string): number | undefined {
  const v = args.flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return v;
}

function numberFlag(args: ParsedArgs, name: string): number | undefined {
  const v = args.flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new UsageError(`--${name} must be a number`);
  return v;
}

function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

/** The text of --chat-template-file (bounded like the worker's renderer bounds a template). */
async function templateFile(path: string, conflicting: boolean): Promise<string> {
  if (conflicting) throw new UsageError('--chat-template-file writes its own template: leave out --tool-template and --no-chat-template');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --chat-template-file ${path}: ${(e as Error).message}`);
  }
  if (text.length > MAX_TEMPLATE_CHARS) throw new UsageError(`--chat-template-file ${path} is longer than ${MAX_TEMPLATE_CHARS} characters`);
  return text;
}

async function writeDraft(args: ParsedArgs, target: string, out: string): Promise<number> {
  const layers = intFlag(args, 'layers');
  if (layers === undefined) throw new UsageError('--draft-of needs --layers N (how many of the target\'s first layers the draft keeps)');
  for (const f of ['embd', 'ff', 'heads', 'kv-heads', 'ctx-train', 'tie-embeddings', 'vocab', 'chat-template', 'tool-template', 'chat-template-file', 'name', 'experts', 'experts-used', 'expert-ff', 'shared-ff', 'router-skew'])
    if (args.flags[f] !== undefined) throw new UsageError(`--${f} does not apply to --draft-of (the draft is the target's own layers)`);
  const bar = args.flags.quiet ? undefined : progressBar(process.stderr, 'synth');
  try {
    const r = await writeDraftOf(target, layers, out, bar ? (d, t) => bar.update(d, t) : undefined);
    bar?.done();
    process.stdout.write(`${r.path}: ${formatBytes(r.bytes)} (${r.bytes} bytes), draft of ${target}: its first ${r.layers} of ${r.targetLayers} layers, ${r.tensors} tensors\n`);
    return 0;
  } catch (e) {
    bar?.done();
    if (e instanceof DraftSubsetError) throw new UsageError(e.message);
    if (e instanceof GgufError) throw new UsageError(`${target}: ${e.message}`);
    throw e;
  }
}

const SYNTH_FLAGS = [
    { name: 'arch', type: 'string', valueName: 'ARCH', description: `architecture: ${ARCHS.join(', ')}`, default: 'llama' },
    { name: 'preset', type: 'string', valueName: 'NAME', description: `size: ${PRESETS.join(', ')}`, default: 'tiny' },
    { name: 'type', type: 'string', valueName: 'TYPE', description: `weight type of the matrices: ${WEIGHT_TYPES.join(', ')} (norms and biases stay F32; MXFP4, gpt-oss's native type, is for the routed experts and writes the other matrices in Q8_0)`, default: 'Q4_0' },
    { name: 'seed', type: 'int', description: 'random seed; the same seed writes the same bytes', default: 1 },
    { name: 'out', short: 'o', type: 'string', valueName: 'PATH', description: 'output file (required)' },
    { name: 'layers', type: 'int', description: 'override the number of layers' },
    { name: 'embd', type: 'int', description: 'override the embedding width (keeps the head size)' },
    { name: 'ff', type: 'int', description: 'override the feed-forward width' },
    { name: 'heads', type: 'int', description: 'override the attention head count' },
    { name: 'kv-heads', type: 'int', description: 'override the KV head count (grouped-query attention)' },
    { name: 'ctx-train', type: 'int', description: 'override the training context length written to the file' },
    { name: 'experts', type: 'int', description: 'experts per layer: with --arch llama, the Mixtral layout (a router and one 3-D tensor per projection); overrides the MoE architectures\' presets' },
    { name: 'experts-used', type: 'int', description: 'experts each token is routed to (default 2 for llama, else the preset\'s)' },
    { name: 'expert-ff', type: 'int', description: 'feed-forward width of one expert (the MoE architectures; llama\'s experts are --ff wide)' },
    { name: 'shared-ff', type: 'int', description: 'feed-forward width of the shared expert (qwen2moe, qwen35moe)' },
    { name: 'router-skew', type: 'number', description: `how unevenly the routers choose experts: the expert of popularity rank r gets router weights scaled by (1+r)^-skew; 0 is uniform (default ${DEFAULT_ROUTER_SKEW}, calibrated: docs/moe.md, "Routing is skewed")` },
    { name: 'tie-embeddings', type: 'boolean', description: 'no output.weight: the head reuses token_embd (llama, qwen2; --no-tie-embeddings forces a separate head)' },
    { name: 'vocab', type: 'string', valueName: 'NAME', description: 'tokenizer from models/ggml-vocab-NAME.gguf (default per arch and preset)' },
    { name: 'name', type: 'string', description: 'general.name written to the file' },
    { name: 'chat-template', type: 'boolean', description: 'write a chat template (from the vocab, else the usual one of its family); --no-chat-template writes none, as base models ship' },
    { name: 'tool-template', type: 'boolean', description: 'write a Hermes/Qwen2.5-style ChatML template that renders tools and tool calls (<tool_call> blocks), for tool calling through serve --api' },
    { name: 'chat-template-file', type: 'string', valueName: 'PATH', description: 'write the Jinja chat template in this file (at most 1 MiB) in place of any other, e.g. to try a template of your own' },
    { name: 'draft-of', type: 'string', valueName: 'TARGET', description: "write a draft for speculative decoding: TARGET's embeddings, output head and first --layers N layers, byte for byte" },
    { name: 'quiet', short: 'q', type: 'boolean', description: 'no progress bar' },
] as const satisfies readonly FlagSpec[];

export const command: CommandSpec = {
  name: 'synth',
  summary: 'write a synthetic GGUF model (real architecture and tokenizer, random weights)',
  positionals: [],
  flags: [...SYNTH_FLAGS],
  details: [
    'Presets (sizes at Q4_0): tiny 10-50 MiB (2 layers), small 130-270 MiB, 1b 0.75-0.95 GiB,',
    '3b 1.5-1.9 GiB, 8b ~4.2 GiB (llama: the Llama-3-8B shape). Widths are multiples of 256 so Q4_K',
    'applies to every matrix. Tokenizers are copied from the pinned llama.cpp source: llama (tiny,',
    'small: llama-spm; 1b, 3b, 8b: llama-bpe), qwen2 (qwen2), gptneox (gpt-neox). Every preset',
    'writes a separate output head: with random weights a tied head tends to repeat tokens.',
    '',
    'Mixtures of experts: --arch llama --experts N [--experts-used K] (the Mixtral layout),',
    '--arch qwen3moe (presets tiny, small, 30b-a3b: the Qwen3-30B-A3B shape, ~17 GB at Q4_0) and',
    '--arch qwen2moe (tiny, small: routed experts plus a shared one). Routers stay F32 and are',
    'skewed (--router-skew) so that some experts are chosen far more often than others.',
    '',
    'A draft made with --draft-of shares every weight with its target; run it with',
    "'ramforge run TARGET --draft DRAFT' and it costs no memory beyond its KV cache.",
    '',
    'Examples:',
    '  ramforge synth --arch llama --preset tiny --type Q4_0 --out t.gguf',
    '  ramforge synth --draft-of t.gguf --layers 1 --out t-draft.gguf',
    '  ramforge synth --arch llama --preset small --experts 16 --experts-used 2 --out mixtral-like.gguf',
    '  ramforge synth --arch qwen3moe --preset 30b-a3b --type Q4_0 --out qwen3-30b-a3b-shape.gguf',
    '  ramforge synth --arch gpt-oss --preset 20b --type MXFP4 --out gpt-oss-20b-shape.gguf',
    '  ramforge synth --arch deepseek2 --preset v2-lite --type Q4_0 --out deepseek-v2-lite-shape.gguf',
    '  ramforge synth --arch qwen35moe --preset 35b-a3b --type Q4_0 --out qwen3.5-35b-a3b-shape.gguf',
    '  ramforge synth --arch gemma4 --preset 26b-a4b --type Q4_0 --out gemma-4-26b-a4b-shape.gguf',
  ].join('\n'),
  async run(args) {
    const f = typedFlags(args.flags, SYNTH_FLAGS);
    const out = f.out;
    if (typeof out !== 'string' || out.length === 0) throw new UsageError("'synth' needs --out PATH (see 'ramforge synth --help')");
    const draftOf = f['draft-of'];
    if (draftOf !== undefined) return writeDraft(args, draftOf, out);
    const overrides: ShapeOverrides = {
      nLayer: intFlag(args, 'layers'),
      nEmbd: intFlag(args, 'embd'),
      nFf: intFlag(args, 'ff'),
      nHead: intFlag(args, 'heads'),
      nHeadKv: intFlag(args, 'kv-heads'),
      nCtxTrain: intFlag(args, 'ctx-train'),
      tieEmbeddings: f['tie-embeddings'],
      nExpert: intFlag(args, 'experts'),
      nExpertUsed: intFlag(args, 'experts-used'),
      nFfExp: intFlag(args, 'expert-ff'),
      nFfShexp: intFlag(args, 'shared-ff'),
      routerSkew: numberFlag(args, 'router-skew'),
    };
    const seed = f.seed;
    if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError('--seed must be a non-negative integer');
    const bar = f.quiet ? undefined : progressBar(process.stderr, 'synth');
    try {
      const r = await synthesize(
        {
          arch: f.arch,
          preset: f.preset,
          type: f.type,
          seed,
          out,
          overrides,
          vocab: f.vocab,
          name: f.name,
          chatTemplate: f['chat-template'],
          toolTemplate: f['tool-template'],
          ...(f['chat-template-file'] !== undefined ? { chatTemplateText: await templateFile(f['chat-template-file'], f['tool-template'] === true || f['chat-template'] === false) } : {}),
        },
        bar ? (w, t) => bar.update(w, t) : undefined,
      );
      bar?.done();
      process.stdout.write(
        `${r.path}: ${formatBytes(r.bytes)} (${r.bytes} bytes), ${formatCount(r.params)} params, ${r.layers} layers, ` +
          `${r.arch} n_embd=${r.shape.nEmbd} n_ff=${r.shape.nFf} heads=${r.shape.nHead}/${r.shape.nHeadKv} n_vocab=${r.nVocab} (${r.vocab}), ` +
          (r.shape.nExpert > 0
            ? `experts ${r.shape.nExpertUsed}/${r.shape.nExpert}${r.arch === 'llama' ? '' : ` n_ff_exp=${r.shape.nFfExp}`}${r.shape.nFfShexp > 0 ? ` n_ff_shexp=${r.shape.nFfShexp}` : ''} router skew ${r.shape.routerSkew}, `
            : '') +
          `${f.type.toUpperCase()}, seed ${seed}, ${r.seconds.toFixed(1)} s\n`,
      );
      return 0;
    } catch (e) {
      bar?.done();
      if (e instanceof SynthInputError) throw new UsageError(e.message);
      throw e;
    }
  },
};
