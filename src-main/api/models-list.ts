// GET /v1/models in OpenAI's shape: the one model being served (none while nothing is loaded),
// with what RAMforge knows about it under `ramforge`. Pure.
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
