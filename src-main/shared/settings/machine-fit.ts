// The memory no schedule can page out — a run's KV cache and compute buffer, anonymous and with
// no swap resident for the whole run — must exist on the machine at all. A context of a million
// tokens passes every bound on its own and still asks for more RAM than the machine has; the
// plan knows that before anything loads, so the run is refused there (a usage error) instead of
// a worker dying after an allocation the kernel cannot back. Pure.
import type { MemoryPlan } from '../plan/plan-types.js';
import { formatBytes } from '../size.js';

/** Why a run of this plan cannot exist on a machine with `machineBytes` of RAM, or null. */
export function machineFitError(plan: Pick<MemoryPlan, 'quantities' | 'input'>, machineBytes: number): string | null {
  // `?.`: the app's plan arrives as JSON from another process, with figures it may lack.
  const kv = plan.quantities.kvRamBytes?.value ?? 0;
  const compute = plan.quantities.computeBufferBytes?.value ?? 0;
  if (kv + compute <= machineBytes) return null;
  const n = plan.input.parallel ?? 1;
  return (
    `a context of ${plan.input.ctx} tokens${n > 1 ? ` for each of ${n} sequences` : ''} needs ${formatBytes(kv)} of KV cache and ` +
    `${formatBytes(compute)} of compute buffer, more than this machine's ${formatBytes(machineBytes)} of RAM: choose a smaller context`
  );
}
