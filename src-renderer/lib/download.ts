// Browser-mode file save: a JSON download through a Blob URL (no server round trip).
export function downloadJson(value: unknown, fileName: string): void {
  const blob = new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function reportFileName(model: string | null, date = new Date()): string {
  const stamp = date.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const base = (model ?? 'run').replace(/\.gguf$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  return `ramforge-report-${base}-${stamp}.json`;
}
