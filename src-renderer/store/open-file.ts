// A dropped or picked file: a report (.json) opens in the dashboard, anything else is
// inspected as a GGUF model (the reader says what is wrong with it if it is not one).
import { useStore } from './index.js';

export function isReportFile(name: string): boolean {
  return /\.json$/i.test(name);
}

export async function openAnyFile(file: File): Promise<void> {
  const s = useStore.getState();
  if (isReportFile(file.name)) await s.openReportFile(file);
  else await s.openModelFile(file);
}
