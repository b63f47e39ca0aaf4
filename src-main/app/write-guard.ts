// Paths still being written — a partial download or upload, or a file a guard says is arriving
// (browser mode's uploads in progress) — which the app never loads.
import { resolve } from 'node:path';

/** A partial download or upload of ours (or of a browser) keeps one of these suffixes until it is whole. */
const PARTIAL = /\.(part|partial|crdownload|download)$/i;

export class WriteGuard {
  private readonly guards: ((path: string) => boolean)[] = [];

  add(isBeingWritten: (path: string) => boolean): void {
    this.guards.push(isBeingWritten);
  }

  isBeingWritten(path: string): boolean {
    return PARTIAL.test(path) || this.guards.some((g) => g(resolve(path)));
  }
}
