// Reports kept in <dataRoot>/reports: the last finished turn's (saved before the turn is
// acknowledged, so the dashboard has it again after a restart) and every exported one. Both are
// durable when their call resolves.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonAtomic } from '../node/atomic-write.js';

/** The last turn's report; the recovery at start checks it like the other JSON files. */
export const LAST_REPORT_FILE = 'last-turn.json';

export class ReportStore {
  constructor(readonly dir: string) {}

  keepLast(report: unknown): Promise<void> {
    return writeJsonAtomic(join(this.dir, LAST_REPORT_FILE), report);
  }

  /** The last turn's report as saved, or null (none yet, or unreadable: the recovery moved a damaged one aside). */
  async last(): Promise<unknown | null> {
    try {
      const v: unknown = JSON.parse(await readFile(join(this.dir, LAST_REPORT_FILE), 'utf8'));
      return v !== null && typeof v === 'object' ? v : null;
    } catch {
      return null;
    }
  }

  /** Saves an exported report under a new name and returns its path. */
  async export(report: unknown): Promise<string> {
    if (report === null || typeof report !== 'object') throw new TypeError('report must be an object');
    const path = join(this.dir, `report-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeJsonAtomic(path, report);
    return path;
  }
}
