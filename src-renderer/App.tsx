// The window: sidebar (models, settings, conversations), tabs, the active view. Files can be
// dropped anywhere: a .gguf is inspected, a .json report opens in the dashboard.
import { useState, type DragEvent } from 'react';
import { CrashBanner } from './components/CrashBanner.js';
import { Notice } from './components/Notice.js';
import { Sidebar } from './components/Sidebar.js';
import { TabBar } from './components/TabBar.js';
import { ChatView } from './components/views/ChatView.js';
import { CompareView } from './components/views/CompareView.js';
import { DashboardView } from './components/views/DashboardView.js';
import { InspectView } from './components/views/InspectView.js';
import { ReportsView } from './components/views/ReportsView.js';
import { TraceView } from './components/views/TraceView.js';
import { useStore } from './store/index.js';
import { openAnyFile } from './store/open-file.js';

function hasFiles(e: DragEvent): boolean {
  return [...e.dataTransfer.types].includes('Files');
}

function ActiveView() {
  const tab = useStore((s) => s.tab);
  switch (tab) {
    case 'chat':
      return <ChatView />;
    case 'dashboard':
      return <DashboardView />;
    case 'inspect':
      return <InspectView />;
    case 'trace':
      return <TraceView />;
    case 'compare':
      return <CompareView />;
    case 'reports':
      return <ReportsView />;
  }
}

export function App() {
  const [dragging, setDragging] = useState(false);
  return (
    <div data-testid="app-root" className="app-root">
      <div
        data-testid="drop-zone"
        className={`app${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => {
          if (!hasFiles(e)) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = 'copy';
          setDragging(true);
        }}
        onDragLeave={(e) => {
          if (e.currentTarget === e.target || !e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          const file = e.dataTransfer.files[0];
          if (file) void openAnyFile(file);
        }}
      >
        <Sidebar />
        <main className="main">
          <TabBar />
          <CrashBanner />
          <div className="view">
            <ActiveView />
          </div>
        </main>
      </div>
      <Notice />
    </div>
  );
}
