// The served model under the names the user gave it (`serve --alias`, `--tags`): listed under the
// first alias in sorted order (llama-server's choice), answering to every alias and to the names
// it had before (its file name), with the tags listed beside it. The backend itself is unchanged.
import type { ApiBackend, ServedModel } from './backend.js';
import { ApiError } from './errors.js';
import { servedId, type ModelNames } from '../shared/model-names.js';

export function namedModel(m: ServedModel, names: ModelNames): ServedModel {
  const id = servedId(names, m.id);
  const aliases = [...new Set([...names.aliases, m.id, ...m.aliases])].filter((a) => a !== id);
  return { ...m, id, aliases, names };
}

/** The backend with its model renamed; nothing else differs. */
export function namedBackend(backend: ApiBackend, names: ModelNames): ApiBackend {
  if (names.aliases.length === 0 && names.tags.length === 0) return backend;
  const model = (): ServedModel | ApiError => {
    const m = backend.model();
    return m instanceof ApiError ? m : namedModel(m, names);
  };
  return new Proxy(backend, {
    get: (target, key, receiver) => {
      if (key === 'model') return model;
      const v: unknown = Reflect.get(target, key, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
