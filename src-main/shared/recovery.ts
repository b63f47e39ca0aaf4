// What a start found left behind by a crash and what it did about it, and the one sentence that
// says so (on `serve`'s stderr, in Electron's log, and in the app's notice). Pure: the data
// folder is read and repaired by src-main/app/recovery.ts.
import type { Conversation } from './api.js';

export interface MovedAside {
  /** The damaged file, relative to the folder it was found in. */
  file: string;
  /** Where it now lies (same folder, never read again by the app). */
  to: string;
}

export interface RecoveryReport {
  /** Titles of the conversations whose reply was being written when the process died. */
  interrupted: string[];
  /** Temp files of atomic writes a dead process never renamed (never read as truth). */
  tempFilesRemoved: number;
  /** Torn or foreign JSON files, kept beside their place under another name. */
  movedAside: MovedAside[];
}

export const NOTHING_RECOVERED: RecoveryReport = { interrupted: [], tempFilesRemoved: 0, movedAside: [] };

export function recoveredAnything(r: RecoveryReport): boolean {
  return r.interrupted.length > 0 || r.tempFilesRemoved > 0 || r.movedAside.length > 0;
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "recovered: 1 conversation interrupted mid-reply ("Hello"), 2 temp files removed, …", or null when there was nothing to recover. */
export function recoveryLine(r: RecoveryReport): string | null {
  if (!recoveredAnything(r)) return null;
  const parts: string[] = [];
  if (r.interrupted.length > 0) {
    const titles = r.interrupted.map((t) => `"${t}"`).join(', ');
    parts.push(`${count(r.interrupted.length, 'conversation', 'conversations')} interrupted mid-reply (${titles}: the reply so far is kept, marked interrupted)`);
  }
  if (r.tempFilesRemoved > 0) parts.push(`${count(r.tempFilesRemoved, 'temp file', 'temp files')} of an unfinished write removed`);
  if (r.movedAside.length > 0) {
    parts.push(`${count(r.movedAside.length, 'damaged file', 'damaged files')} moved aside (${r.movedAside.map((m) => `${m.file} → ${m.to}`).join(', ')})`);
  }
  return `recovered: ${parts.join(', ')}`;
}

/**
 * A conversation as it is after a crash: a reply still marked as being written is kept with
 * what was saved of it and marked interrupted (the user's message before it is untouched).
 * Null when nothing in it was being written.
 */
export function recoverConversation(c: Conversation): Conversation | null {
  if (!c.messages.some((m) => m.streaming === true)) return null;
  return {
    ...c,
    messages: c.messages.map((m) => {
      if (m.streaming !== true) return m;
      const { streaming: _, ...rest } = m;
      return { ...rest, interrupted: true };
    }),
  };
}
