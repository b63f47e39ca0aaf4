// What a report needs to know about the model: identity, sizes, layers and the bytes each token
// reads. Built from the hardened reader's view (the CLI, which parsed the header) or from the
// worker's inventory of what llama.cpp loaded (the app, which never parses a header in its main
// process). Pure.
import type { ModelView } from '../gguf/model-view.js';
import type { Inventory } from '../residency/inventory.js';
import { weightsReadPerToken } from '../plan/plan.js';
import { embdRowReadBytes } from '../settings/token-embd.js';

export interface ModelSummary {
  name: string | null;
  architecture: string | null;
  fileBytes: number;
  tensorBytes: number;
  parameterCount: number | null;
  layers: { index: number; bytes: number }[];
  persistentBytes: number;
  /** Weight bytes each decoded token reads (every layer and the output head; one token_embd row). */
  weightsPerToken: number;
  /** Where the figures come from. */
  source: string;
}

export function summaryFromView(view: ModelView): ModelSummary {
  return {
    name: view.name,
    architecture: view.architecture,
    fileBytes: view.fileBytes,
    tensorBytes: view.tensorBytes,
    parameterCount: view.parameterCount,
    layers: view.layers.map((l) => ({ index: l.index, bytes: l.bytes })),
    persistentBytes: view.persistent.bytes,
    weightsPerToken: weightsReadPerToken(view),
    source: 'GGUF header (hardened reader)',
  };
}

export function summaryFromInventory(inv: Inventory, m: { name: string; arch: string; nParams: number; fileBytes: number }): ModelSummary {
  const tensorBytes = inv.tensors.reduce((s, t) => s + t.bytes, 0);
  return {
    name: m.name,
    architecture: m.arch,
    fileBytes: m.fileBytes,
    tensorBytes,
    parameterCount: m.nParams,
    layers: inv.layers.map((l) => ({ index: l.index, bytes: l.bytes })),
    persistentBytes: inv.persistentBytes,
    weightsPerToken: tensorBytes - embdRowReadBytes(inv.tensors, (t) => t.bytes),
    source: "the tensors llama.cpp loaded (the worker's inventory)",
  };
}
