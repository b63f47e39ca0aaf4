// Loading the engine's model, step by step: the checked open, the placement the addon is given,
// the target's context, the draft attached beside it, and what the host is told of the result.
import type { DeviceMemory, LoadParams, ModelInfo } from '../shared/worker-protocol.js';
import type { NativeAddon, NativeContext, NativeContextOptions, NativeModel, NativeModelOptions } from '../native/addon.js';
import { ModelRefusedError, openModelForLoad } from '../node/model-check.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { loadDraft, type LoadedDraft } from './draft-loader.js';
import { WorkerError, codeOf } from './worker-error.js';
import { DRAFT_CONTEXT_BATCH } from '../shared/draft/draft-budget.js';
import { DEFAULT_CTX, MAX_UBATCH, draftRefusal } from '../shared/settings/run-settings.js';
import { layerCallbackFor } from '../shared/settings/load-params.js';
import { basename } from 'node:path';

/** Our hardened reader sees the file before llama.cpp does, whoever asked for the load. */
export async function openChecked(modelPath: string): Promise<{ opened: OpenedModel; files: string[] }> {
  try {
    const opened = await openModelForLoad(modelPath);
    return { opened, files: opened.shards.map((s) => s.path) };
  } catch (e) {
    if (e instanceof ModelRefusedError) throw new WorkerError(e.code, e.message);
    throw e;
  }
}

/** The draft loaded beside the target and attached to its context; on failure everything loaded is freed. */
export async function attachDraft(addon: NativeAddon, opened: OpenedModel, model: NativeModel, ctx: NativeContext, params: LoadParams): Promise<LoadedDraft> {
  let draft: LoadedDraft | null = null;
  try {
    const refused = draftRefusal(true, params.parallel ?? 1);
    if (refused) throw new WorkerError('BAD_ARGUMENT', refused);
    draft = await loadDraft(addon, opened, model, params.draft!, { repack: params.repack ?? true, prefault: params.prefault !== false }, {
      nCtx: params.ctx ?? DEFAULT_CTX,
      nSeq: 1,
      nThreads: params.threads ?? 0,
      // The draft decodes one token at a time; only catching up with a prompt takes more.
      // Its compute buffer and logits grow with the batch (4 B × vocabulary per token).
      nBatch: Math.min(params.batch ?? MAX_UBATCH, DRAFT_CONTEXT_BATCH),
    });
    ctx.attachDraft(draft.ctx, { max: params.draft!.max, min: params.draft!.min });
    return draft;
  } catch (e) {
    draft?.ctx.free();
    draft?.model.free();
    ctx.free();
    model.free();
    throw new WorkerError(e instanceof WorkerError ? e.code : codeOf(e, 'DRAFT_FAILED'), (e as Error).message);
  }
}

export function modelInfoOf(path: string, ni: ReturnType<NativeModel['info']>, ctx: NativeContext, draft: LoadedDraft | null, t0: number): ModelInfo {
  return {
    path,
    name: ni.metadata['general.name'] || basename(path),
    arch: ni.metadata['general.architecture'] ?? 'unknown',
    description: ni.description,
    nParams: ni.nParams,
    sizeBytes: ni.sizeBytes,
    nLayers: ni.nLayers,
    nCtxTrain: ni.nCtxTrain,
    nVocab: ni.nVocab,
    nCtx: ctx.info().nCtx,
    chatTemplate: ni.chatTemplate,
    metadata: ni.metadata,
    loadMs: performance.now() - t0,
    schedule: null,
    draft: draft?.info ?? null,
  };
}

/** What llama.cpp holds on each device that is not host memory, summed over its buffer types. */
export function deviceMemoryOf(addon: NativeAddon, ctx: NativeContext): DeviceMemory[] {
  const by = new Map<string, DeviceMemory>();
  for (const b of addon.memoryBreakdown(ctx)) {
    if (b.host || b.device === null) continue;
    const d = by.get(b.device) ?? { device: b.device, modelBytes: 0, contextBytes: 0, computeBytes: 0, totalBytes: 0 };
    d.modelBytes += b.model;
    d.contextBytes += b.context;
    d.computeBytes += b.compute;
    d.totalBytes += b.model + b.context + b.compute;
    by.set(b.device, d);
  }
  return [...by.values()];
}

/** The addon's placement options: the offload's devices and shares, else the plain layer count. */
/**
 * --experts-used: llama.cpp reads `<arch>.expert_used_count` as given here instead of the file's
 * (its --override-kv); the model's metadata then reports it, so the routing tap, the trace's
 * shape and the expert budget all count the experts a token really uses.
 */
export function expertsUsedOverride(opened: OpenedModel, params: LoadParams): Pick<NativeModelOptions, 'kvOverrides'> {
  if (params.expertsUsed === undefined) return {};
  const arch = opened.view.architecture;
  const moe = opened.view.moe;
  if (!arch || !moe) throw new WorkerError('BAD_ARGUMENT', '--experts-used applies to a mixture of experts; this model has no experts');
  if (params.expertsUsed > moe.expertCount) throw new WorkerError('BAD_ARGUMENT', `--experts-used ${params.expertsUsed}: the model has ${moe.expertCount} experts`);
  return { kvOverrides: [{ key: `${arch}.expert_used_count`, int: params.expertsUsed }] };
}

export function placementOf(params: LoadParams): Pick<NativeModelOptions, 'gpuLayers' | 'devices' | 'tensorSplit' | 'cpuTensors' | 'rpcServers'> {
  const o = params.offload;
  if (!o) return { gpuLayers: params.gpuLayers ?? 0 };
  return { gpuLayers: o.layers, devices: o.devices, tensorSplit: o.split, rpcServers: o.rpcServers, ...(o.cpuTensors ? { cpuTensors: o.cpuTensors } : {}) };
}

/** The target's context: each of its `parallel` sequences gets the context the settings ask for. Frees the model if it cannot be made. */
export function createTargetContext(model: NativeModel, params: LoadParams, routing?: NativeContextOptions['routing']): NativeContext {
  const policy = params.policy;
  try {
    const parallel = Math.max(1, params.parallel ?? 1);
    const rpcServers = params.offload?.rpcServers ?? [];
    return model.createContext({
      // Each sequence gets the context the settings ask for.
      nCtx: (params.ctx ?? DEFAULT_CTX) * parallel,
      nSeq: parallel,
      nThreads: params.threads ?? 0,
      nBatch: params.batch ?? MAX_UBATCH,
      // Layers on RPC nodes: the native half times the waits on each, whatever the policy.
      observeLayers: policy !== 'off' || params.graphTrace !== undefined || rpcServers.length > 0,
      ...(rpcServers.length > 0 ? { remoteNodes: rpcServers } : {}),
      layerCallback: layerCallbackFor(params),
      guardNewBatchSizes: (params.offload?.devices ?? []).some((d) => d.startsWith('Vulkan')),
      ...(routing ? { routing } : {}),
    });
  } catch (e) {
    model.free();
    throw new WorkerError(codeOf(e, 'CONTEXT_FAILED'), (e as Error).message);
  }
}
