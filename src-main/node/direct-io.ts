// Whether a file's file system takes O_DIRECT: the stream schedule then reads past the page
// cache (no kernel read-ahead to budget for).
import { closeSync, constants, openSync } from 'node:fs';

export function directIoWorks(files: readonly string[]): boolean {
  return files.every((f) => {
    try {
      closeSync(openSync(f, constants.O_RDONLY | constants.O_DIRECT));
      return true;
    } catch {
      return false;
    }
  });
}
