// The names the API serves its model under (llama-server's --alias, comma-separated, and its
// informational --tags), as `serve` takes them and the app's setting keeps them. Pure.

export interface ModelNames {
  /** Names a request's `model` may use; the first in sorted order is the id listed (as llama-server lists it). [] = the file's name. */
  aliases: string[];
  /** Labels /v1/models lists beside the model; nothing is chosen by them. */
  tags: string[];
}

export const NO_MODEL_NAMES: ModelNames = { aliases: [], tags: [] };

const MAX_NAMES = 32;
const NAME_RE = /^[\x21-\x2b\x2d-\x7e]{1,256}$/;

export class ModelNamesError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'ModelNamesError';
  }
}

/** `a,b,c` → the names, each once; `what` names the list in the error (an alias, a tag). */
export function parseNameList(text: string, what: 'alias' | 'tag'): string[] {
  const names = [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  return checkNames(names, what);
}

function checkNames(names: unknown, what: 'alias' | 'tag'): string[] {
  if (!Array.isArray(names) || names.length > MAX_NAMES) throw new ModelNamesError(`give a list of at most ${MAX_NAMES} ${what === 'alias' ? 'aliases' : 'tags'}`);
  for (const n of names) {
    if (typeof n !== 'string' || !NAME_RE.test(n)) throw new ModelNamesError(`${what} '${String(n).slice(0, 40)}' must be 1 to 256 printable characters without spaces or commas`);
  }
  return names as string[];
}

/** Names that crossed a process boundary or came from a file (untrusted shape). */
export function validateModelNames(v: unknown): ModelNames {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ModelNamesError('model names must be an object {aliases, tags}');
  const o = v as Record<string, unknown>;
  return { aliases: checkNames(o.aliases ?? [], 'alias'), tags: checkNames(o.tags ?? [], 'tag') };
}

/** The id a model with these aliases is listed under: the first in sorted order, as llama-server's std::set gives it. */
export function servedId(names: ModelNames, fileId: string): string {
  return [...names.aliases].sort()[0] ?? fileId;
}
