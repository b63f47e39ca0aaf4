// Which model a request's `model` means. With one model loaded, a request without a name, or
// with any name of its own ("gpt-4o", LangChain's default, llama.cpp's test suite's), is served
// by it, as llama-server and LM Studio do. A name that is another model on this machine (one the
// app lists: pinned, recent) is a 404 that says so: loading it would replace the model every
// other client is using, and that is the user's decision (the app's load, or serve's --model),
// not a request's. A model the API itself unloaded (Ollama's keep_alive 0) is loaded again.
import type { ApiBackend, ServedModel } from './backend.js';
import { ApiError, notFound } from './errors.js';

export async function servedFor(backend: ApiBackend, requested: string | null, names: (requested: string, m: ServedModel) => boolean, listRoute: string): Promise<ServedModel> {
  let served = backend.model();
  // A model a keep_alive 0 unloaded comes back for the next request, as with Ollama.
  if (served instanceof ApiError && (served.code === 'model_not_loaded' || served.code === 'model_loading') && backend.loadAgain && (await backend.loadAgain(requested))) served = backend.model();
  if (served instanceof ApiError) throw served;
  if (requested === null || names(requested, served)) return served;
  const onDisk = backend.modelOnDisk ? await backend.modelOnDisk(requested) : null;
  if (onDisk !== null) {
    throw notFound(
      `the model '${requested.slice(0, 200)}' is on this machine but not loaded: this server serves '${served.id}' (${listRoute}); load the other one in the app or start ramforge serve with it (a request does not replace the model other clients are using)`,
      'model_not_found',
    );
  }
  return served;
}
