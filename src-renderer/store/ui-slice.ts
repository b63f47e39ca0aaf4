import type { Slice } from './types.js';

export type Tab = 'chat' | 'dashboard' | 'inspect' | 'trace' | 'compare' | 'reports';

export interface UiSlice {
  tab: Tab;
  notice: { kind: 'info' | 'error'; text: string } | null;
  setTab(tab: Tab): void;
  notify(kind: 'info' | 'error', text: string): void;
  clearNotice(): void;
}

export const createUiSlice: Slice<UiSlice> = (set) => ({
  tab: 'inspect',
  notice: null,
  setTab: (tab) => set({ tab }),
  notify: (kind, text) => set({ notice: { kind, text } }),
  clearNotice: () => set({ notice: null }),
});
