// One full micro-batch through a context whose layers are on a GPU, before anything else runs
// on it. ggml's Vulkan backend sizes its dequantisation and split-k scratch buffers by the
// largest matmul it has seen and grows them in the middle of a graph when a later one needs
// more; growing them after the first graph crashed lavapipe's worker threads (SIGSEGV inside
// libvulkan_lvp: a one-token decode — the graph trace at load — then a 2–16 token prompt), a
// use of freed buffers a real GPU may not report (llama.cpp PR 24312 describes the same
// resubmission). Sized by a micro-batch of the context's largest size first, they never grow
// again for prompt or decode batches (measured: 1, 2, 12, 16 and 40 tokens after it, no crash).
// A mixture of experts whose experts are on the device needs more for a one-token decode's
// expert ops than for the full micro-batch's: after the full batch alone, the first decode
// crashed 6 of 6 runs (two Mixtral-layout models), after one token then the full batch 0 of 9
// (those two and a dense model). So one token goes first.
import type { NativeContext } from '../native/addon.js';
import type { LoadParams } from '../shared/worker-protocol.js';

/** The load puts layers on a GPU (not an RPC node). */
export function offloadsToGpu(params: LoadParams): boolean {
  return (params.offload?.devices ?? []).some((d) => !d.startsWith('rpc:'));
}

export function warmGpuContext(ctx: NativeContext, token: number): void {
  const { nBatch, nCtx } = ctx.info();
  const n = Math.max(1, Math.min(nBatch, nCtx - 1));
  try {
    ctx.evalLogits([token]);
    ctx.clearMemory();
    ctx.evalLogits(new Array<number>(n).fill(token));
  } catch {
    // Whatever failed here fails the first real decode too, which reports it with its request.
  }
  ctx.clearMemory();
}
