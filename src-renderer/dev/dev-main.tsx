// DEV ONLY entry: install the mock API, then start the real renderer.
import { setApi } from '../api.js';
import { useStore } from '../store/index.js';
import type { Tab } from '../store/ui-slice.js';
import { createMockApi } from './mock-api.js';
import { mockReport } from './mock-data.js';

setApi(createMockApi());
await import('../main.js');
const [tab, extra] = location.hash.slice(1).split(',');
const s = useStore.getState();
await s.openModel('/models/synthetic-13b.gguf', 'synthetic-13b.gguf');
s.setSizeText('ram', '11G');
if (extra === 'bad') await s.openModel('/models/bad.gguf');
if (extra === 'crash') await s.killWorker();
if (extra === 'chat') useStore.setState({ current: (await (await import('./mock-api.js')).createMockApi().listConversations())[0]! });
if (tab === 'compare') {
  const a = s.addReport(mockReport('off', [1, 2, 3, 4], 0.09), 'off.json', 'off');
  const b = s.addReport(mockReport('stream', [1, 2, 3, 5], 0.45), 'stream.json', 'stream');
  useStore.setState({ compareIds: [a.id, b.id] });
}
if (tab === 'trace') await s.fetchLastReport();
useStore.setState({ tab: (tab as Tab) || 'inspect' });
