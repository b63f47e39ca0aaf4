// Conversations saved as one JSON file each under <dataRoot>/conversations, written atomically
// and durably (a save that resolved survives a crash).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Conversation } from '../shared/api.js';
import { writeJsonAtomic } from '../node/atomic-write.js';

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function isConversation(v: unknown): v is Conversation {
  const c = v as Conversation;
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.id === 'string' &&
    typeof c.title === 'string' &&
    typeof c.modelPath === 'string' &&
    typeof c.system === 'string' &&
    typeof c.updatedAt === 'string' &&
    (c.mode === undefined || c.mode === 'chat' || c.mode === 'completion') &&
    (c.modeAuto === undefined || typeof c.modeAuto === 'boolean') &&
    Array.isArray(c.messages) &&
    c.messages.every(
      (m) =>
        typeof m === 'object' &&
        m !== null &&
        ['system', 'user', 'assistant'].includes(m.role) &&
        typeof m.content === 'string' &&
        (m.streaming === undefined || typeof m.streaming === 'boolean') &&
        (m.interrupted === undefined || typeof m.interrupted === 'boolean'),
    )
  );
}

export class ConversationStore {
  constructor(readonly dir: string) {}

  /** The file of a conversation with this id (the id checked: it becomes a file name). */
  fileOf(id: string): string {
    // Only safe characters, so no path can be escaped.
    if (!ID_RE.test(id)) throw new TypeError(`saveConversation: invalid id '${String(id).slice(0, 80)}' (letters, digits, _ and -, at most 64)`);
    return join(this.dir, `${id}.json`);
  }

  async list(): Promise<Conversation[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: Conversation[] = [];
    for (const n of names) {
      if (!n.endsWith('.json') || n.startsWith('.')) continue;
      try {
        const v: unknown = JSON.parse(await readFile(join(this.dir, n), 'utf8'));
        if (isConversation(v)) out.push(v);
      } catch {
        // A file that is not a conversation (or was edited by hand into nonsense) is skipped.
      }
    }
    return out.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  async save(c: Conversation): Promise<void> {
    if (!isConversation(c)) throw new TypeError('saveConversation: not a conversation object');
    // Durable when this resolves (writeJsonAtomic fsyncs the file and the folder).
    await writeJsonAtomic(this.fileOf(c.id), c);
  }
}
