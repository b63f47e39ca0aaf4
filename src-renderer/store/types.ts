// The one store's shape: the union of its slices. Each slice lives in its own file.
import type { StateCreator } from 'zustand';
import type { ChatSlice } from './chat-slice.js';
import type { EngineSlice } from './engine-slice.js';
import type { InspectSlice } from './inspect-slice.js';
import type { ReportSlice } from './report-slice.js';
import type { TelemetrySlice } from './telemetry-slice.js';
import type { UiSlice } from './ui-slice.js';
import type { DiscoverySlice } from './discovery-slice.js';
import type { ServerSlice } from './server-slice.js';
import type { SpeculativeSlice } from './speculative-slice.js';

export type Store = EngineSlice & InspectSlice & ChatSlice & TelemetrySlice & ReportSlice & UiSlice & DiscoverySlice & ServerSlice & SpeculativeSlice;

export type Slice<T> = StateCreator<Store, [], [], T>;

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : 'unknown error';
}

let seq = 0;
export function newId(prefix: string): string {
  seq++;
  return `${prefix}-${Date.now().toString(36)}-${seq.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
