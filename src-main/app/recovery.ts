// At start, before anything reads or writes the data folder: what a crash (kill -9, power loss)
// left behind is repaired and counted. Temp files of atomic writes whose writer is dead are
// removed (never read as truth); a torn or foreign JSON file is moved aside under another name
// (kept for the user, never read again, never a failed start); a conversation whose reply was
// being written is kept with what was saved of the reply, marked interrupted.
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, isAbsolute } from 'node:path';
import { atomicTempWriter } from '../node/atomic-write.js';
import { processAlive } from '../node/process-alive.js';
import { NOTHING_RECOVERED, recoverConversation, type RecoveryReport } from '../shared/recovery.js';
import { ConversationStore, isConversation } from './conversations.js';
import { LAST_REPORT_FILE } from './report-store.js';

/** The data folder's JSON files read as state (besides the conversations). */
const STATE_FILES = ['api-server.json', 'model-folders.json', 'recent-models.json', join('reports', LAST_REPORT_FILE)];

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** A process with this pid is running (another of ours may be writing: its temp files stay). */
function alive(pid: number): boolean {
  // Recovery runs before this process writes anything: a temp file with its own pid is a dead namesake's.
  return pid !== process.pid && processAlive(pid);
}

async function removeTemps(dir: string): Promise<number> {
  let n = 0;
  for (const name of await names(dir)) {
    const pid = atomicTempWriter(name);
    if (pid === null || alive(pid)) continue;
    await rm(join(dir, name), { force: true });
    n++;
  }
  return n;
}

class Repair {
  readonly report: RecoveryReport = { ...NOTHING_RECOVERED, interrupted: [], movedAside: [] };
  private readonly stamp = new Date().toISOString().replace(/[:.]/g, '-');

  constructor(private readonly dataDir: string) {}

  private shown(path: string): string {
    const r = relative(this.dataDir, path);
    return r.startsWith('..') || isAbsolute(r) ? path : r;
  }

  async moveAside(path: string): Promise<void> {
    const to = `${path}.damaged-${this.stamp}`;
    // Not moved (a read-only folder): the readers skip it as before; the start goes on.
    if (!(await rename(path, to).then(() => true, () => false))) return;
    this.report.movedAside.push({ file: this.shown(path), to: basename(to) });
  }

  /** The file's JSON, or undefined when there is no file; a file that does not parse is moved aside (null). */
  async readJson(path: string): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return undefined;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      await this.moveAside(path);
      return null;
    }
  }

  async conversations(dir: string): Promise<void> {
    const store = new ConversationStore(dir);
    for (const name of await names(dir)) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const path = join(dir, name);
      const v = await this.readJson(path);
      if (v === undefined || v === null) continue;
      if (!isConversation(v)) {
        await this.moveAside(path);
        continue;
      }
      const recovered = recoverConversation(v);
      if (!recovered) continue;
      await store.save(recovered);
      this.report.interrupted.push(recovered.title);
    }
  }
}

/**
 * Repairs `dataDir` (and `otherFiles`, JSON state kept elsewhere, e.g. the routing cache) and
 * says what was done. Call it once at start, before the app reads its state.
 */
export async function recoverDataFolder(dataDir: string, otherFiles: string[] = []): Promise<RecoveryReport> {
  const r = new Repair(dataDir);
  const conversations = join(dataDir, 'conversations');
  const files = [...STATE_FILES.map((f) => join(dataDir, f)), ...otherFiles];
  const dirs = new Set([dataDir, conversations, ...files.map((f) => dirname(f))]);
  for (const d of dirs) r.report.tempFilesRemoved += await removeTemps(d);
  for (const f of files) await r.readJson(f);
  await r.conversations(conversations);
  return r.report;
}
