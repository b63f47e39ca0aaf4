// The Hugging Face hub cache: hub/models--<org>--<name>/snapshots/<revision>/<files> (files are
// symlinks into ../../blobs), refs/<branch> holding the revision a branch points at. Pure.

/** `models--org--name` → `org/name` (`models--name` → `name`); null for other folders (datasets, spaces, locks). */
export function hfRepoId(dirName: string): string | null {
  const m = /^models--(.+)$/.exec(dirName);
  if (!m) return null;
  const parts = (m[1] as string).split('--');
  return parts.every((p) => p.length > 0) ? parts.join('/') : null;
}

/** Snapshot revisions with the one refs/main names first (its files win when two revisions share one). */
export function orderRevisions(revisions: readonly string[], mainRevision: string | null): string[] {
  const sorted = [...revisions].sort();
  if (!mainRevision || !sorted.includes(mainRevision)) return sorted;
  return [mainRevision, ...sorted.filter((r) => r !== mainRevision)];
}
