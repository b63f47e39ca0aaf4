// The app's single store, made of typed slices; components select single fields.
import { create } from 'zustand';
import { getApi } from '../api.js';
import { createChatSlice } from './chat-slice.js';
import { createEngineSlice } from './engine-slice.js';
import { handleEvent } from './events.js';
import { createEventBatcher } from './event-batcher.js';
import { createInspectSlice } from './inspect-slice.js';
import { createReportSlice } from './report-slice.js';
import { createTelemetrySlice } from './telemetry-slice.js';
import type { Store } from './types.js';
import { createUiSlice } from './ui-slice.js';
import { createDiscoverySlice } from './discovery-slice.js';
import { createServerSlice } from './server-slice.js';
import { createSpeculativeSlice } from './speculative-slice.js';
import { recoveryLine } from '../../src-main/shared/recovery.js';

export type { Store } from './types.js';

export const useStore = create<Store>()((...a) => ({
  ...createEngineSlice(...a),
  ...createInspectSlice(...a),
  ...createChatSlice(...a),
  ...createTelemetrySlice(...a),
  ...createReportSlice(...a),
  ...createUiSlice(...a),
  ...createDiscoverySlice(...a),
  ...createServerSlice(...a),
  ...createSpeculativeSlice(...a),
}));

/**
 * Subscribe to host events and fetch the initial state. Returns the unsubscribe function.
 * Events are handled once per frame (`schedule`; tests pass a synchronous one).
 */
export function startStore(opts: { schedule?: (flush: () => void) => void } = {}): () => void {
  const api = getApi();
  const off = api.onEvent(createEventBatcher((e, tokens, passes) => handleEvent(useStore.getState(), e, tokens, passes), opts.schedule));
  const s = useStore.getState();
  api.getState().then(s.setEngine, (e: unknown) => useStore.setState({ engineError: e instanceof Error ? e.message : String(e) }));
  void s.refreshModels();
  void s.refreshConversations();
  void s.fetchLastReport();
  void s.refreshApiServer();
  // Once per start of the host: what it recovered after a crash.
  api.takeRecoveryNotice().then(
    (r) => {
      const line = r ? recoveryLine(r) : null;
      if (line) useStore.getState().notify('info', line);
    },
    () => undefined,
  );
  return off;
}
