// GET /v1/models in OpenAI's shape: the one model being served (none while nothing is loaded),
// with what RAMforge knows about it under `ramforge`; and llama-server's GET /props. Pure.
import { RAMFORGE_VERSION } from '../shared/version.js';
import type { ServedModel } from './backend.js';
import type { GenerationDefaults } from './generation-defaults.js';
import { generationSettings } from './generation-settings.js';

export function modelObject(m: ServedModel): object {
  return {
    id: m.id,
    // llama-server's: every name given with --alias, and the --tags.
    aliases: m.names?.aliases ?? [],
    tags: m.names?.tags ?? [],
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

/**
 * llama-server's /props: the context a request gets, the sampling a request gets for what it does
 * not set (the server's defaults), the sequences (its slots), the chat template.
 */
export function propsObject(m: ServedModel, defaults: GenerationDefaults): object {
  return {
    default_generation_settings: { n_ctx: m.ctxPerSequence, params: generationSettings(defaults) },
    total_slots: m.sequences,
    model_alias: m.id,
    model_path: m.aliases.find((a) => a.toLowerCase().endsWith('.gguf')) ?? m.id,
    chat_template: m.facts?.chatTemplate ?? '',
    modalities: { vision: false, audio: false },
    build_info: `ramforge-${RAMFORGE_VERSION}`,
  };
}

/**
 * llama-server's GET /slots, from what RAMforge knows for certain: one entry per slot (a
 * generation that may run at once: the model's sequences, shared by the API and the app's chat),
 * its context, and whether a generation holds it now. Which KV sequence the worker gives it, and
 * the prompt and parameters llama-server adds, are not shown.
 */
export function slotsList(m: ServedModel, busy: boolean[]): object[] {
  return busy.map((processing, id) => ({ id, n_ctx: m.ctxPerSequence, is_processing: processing }));
}
