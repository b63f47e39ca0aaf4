import { ConversationsSection } from './ConversationsSection.js';
import { DiscoveredModels } from './DiscoveredModels.js';
import { ModelsSection } from './ModelsSection.js';
import { SettingsPanel } from './SettingsPanel.js';
import { ApiServerSection } from './server/ApiServerSection.js';

export function Sidebar() {
  return (
    <aside className="sidebar">
      <div className="brand">
        <div className="logo" />
        <span className="name">RAMforge</span>
        <span className="sub">models bigger than RAM</span>
      </div>
      <ModelsSection />
      <DiscoveredModels />
      <SettingsPanel />
      <ApiServerSection />
      <ConversationsSection />
    </aside>
  );
}
