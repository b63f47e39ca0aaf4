import { useStore } from '../store/index.js';
import type { Tab } from '../store/ui-slice.js';
import { EngineStatus } from './EngineStatus.js';

const TABS: { tab: Tab; label: string }[] = [
  { tab: 'chat', label: 'Chat' },
  { tab: 'dashboard', label: 'Dashboard' },
  { tab: 'inspect', label: 'Inspect' },
  { tab: 'trace', label: 'Graph trace' },
  { tab: 'compare', label: 'Compare' },
  { tab: 'reports', label: 'Reports' },
];

export function TabBar() {
  const tab = useStore((s) => s.tab);
  const setTab = useStore((s) => s.setTab);
  return (
    <nav className="tabs">
      {TABS.map((t) => (
        <button key={t.tab} className={`tab${tab === t.tab ? ' active' : ''}`} data-testid={`nav-${t.tab}`} onClick={() => setTab(t.tab)}>
          {t.label}
        </button>
      ))}
      <div className="status-slot">
        <EngineStatus />
      </div>
    </nav>
  );
}
