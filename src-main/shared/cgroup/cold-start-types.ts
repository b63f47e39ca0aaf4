// What dropping a model file's page cache before a run found (the supervisor's cold start).

export type DropStatus =
  /** fadvise ran and fincore shows no page of the file resident. */
  | 'dropped'
  /** fadvise ran; fincore is not installed, so nothing was verified. */
  | 'requested'
  /** fadvise ran, but some pages stayed (mapped by a process, dirty, or locked). */
  | 'partial'
  /** The file system keeps file data only in memory (tmpfs, ramfs): there is no cache to drop. */
  | 'impossible'
  | 'failed';

export interface DropResult {
  path: string;
  status: DropStatus;
  method: 'addon-fadvise' | 'dd-nocache' | null;
  fsType: string | null;
  sizeBytes: number | null;
  residentBeforeBytes: number | null;
  residentAfterBytes: number | null;
  /** Why the status is not 'dropped' (or null). */
  reason: string | null;
}
