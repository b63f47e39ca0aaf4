// GET /v1/models in OpenAI's shape: the one model being served (none while nothing is loaded),
// with what RAMforge knows about it under `ramforge`; and llama-server's GET /props. Pure.
import { RAMFORGE_VERSION } from '../shared/version.js';
import type { ServedModel } from './backend.js';

export function modelObject(m: ServedModel): object {
  return {
    id: m.id,
    object: 'model',
    created: m.created,
    owned_by: 'ramforge',
    ramforge: {
      arch: m.arch,
      chat_template: m.hasChatTemplate,
      ctx_per_sequence: m.ctxPerSequence,
      sequences: m.sequences,
      policy: m.policy,
      aliases: m.aliases,
    },
  };
}

export function modelList(m: ServedModel | null): object {
  return { object: 'list', data: m ? [modelObject(m)] : [] };
}

/** llama-server's /props: the context a request gets, the sequences (its slots), the chat template. */
export function propsObject(m: ServedModel): object {
  return {
    default_generation_settings: { n_ctx: m.ctxPerSequence, params: { n_predict: -1, temperature: 1, top_k: 0, top_p: 1, min_p: 0, repeat_penalty: 1, seed: -1 } },
    total_slots: m.sequences,
    model_alias: m.id,
    model_path: m.aliases.find((a) => a.toLowerCase().endsWith('.gguf')) ?? m.id,
    chat_template: m.facts?.chatTemplate ?? '',
    modalities: { vision: false, audio: false },
    build_info: `ramforge-${RAMFORGE_VERSION}`,
  };
}
