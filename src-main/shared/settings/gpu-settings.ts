// The settings' GPU (pure): the device `gpu` names (or the default one) among those the machine
// probed, the VRAM budget (given, else the device's free memory less the margin), what the plan
// is told, what the worker starts with, and the refusals made before anything loads.
import { formatBytes } from '../size.js';
import { GpuChoiceError, chooseGpu, defaultVramBytes, type GpuChoice, type GpuProbe } from '../gpu/gpu-choice.js';
import type { MemoryPlan, PlanInput } from '../plan/plan-types.js';
import { SettingsError, type RunSettings } from './run-settings.js';

export interface ResolvedGpu {
  readonly choice: GpuChoice | null;
  /** The budget the plan holds the device to (null: no VRAM tier). */
  readonly vramBytes: number | null;
  readonly vramSource: 'given' | 'device free memory less the margin' | null;
}

/** What a prepared load uses of the GPU: the device and the worker's variables. */
export interface PreparedGpu {
  /** ggml's name in the worker (Vulkan0) and the device's own. */
  readonly device: string;
  readonly name: string;
  readonly index: number;
  readonly software: boolean;
  readonly vramBytes: number;
  readonly vramSource: string;
  readonly env: Readonly<Record<string, string>>;
}

/** A name that matches no device is a SettingsError on `gpu`. */
export function resolveGpu(s: Pick<RunSettings, 'gpu' | 'vramBytes'>, probe: GpuProbe | null | undefined): ResolvedGpu {
  let choice: GpuChoice | null;
  try {
    choice = chooseGpu(probe ?? null, s.gpu);
  } catch (e) {
    if (e instanceof GpuChoiceError) throw new SettingsError('gpu', e.message);
    throw e;
  }
  if (s.vramBytes !== null) return { choice, vramBytes: s.vramBytes, vramSource: 'given' };
  return choice ? { choice, vramBytes: defaultVramBytes(choice.device), vramSource: 'device free memory less the margin' } : { choice, vramBytes: null, vramSource: null };
}

/** The plan's VRAM input: a budget without a device still plans the tier (what a GPU would hold), it just runs nowhere. */
export function gpuPlanInput(r: ResolvedGpu): Pick<PlanInput, 'vramBytes' | 'gpuDevice'> {
  return { ...(r.vramBytes !== null ? { vramBytes: r.vramBytes } : {}), ...(r.choice ? { gpuDevice: r.choice.ggmlName } : {}) };
}

/**
 * Refused before load: a budget larger than the device has free (VRAM has no kernel cap, so the
 * plan's budget is all that holds it), and a plan whose device share exceeds its budget.
 */
export function refuseOverVram(r: ResolvedGpu, plan: MemoryPlan | null): void {
  if (!r.choice || r.vramBytes === null) return;
  const d = r.choice.device;
  if (r.vramBytes > d.memoryFree) {
    throw new SettingsError('vramBytes', `${formatBytes(r.vramBytes)} is more than ${d.name} has free (${formatBytes(d.memoryFree)} of ${formatBytes(d.memoryTotal)}). Nothing was loaded.`);
  }
  const used = plan?.gpu?.quantities.usedBytes.value ?? 0;
  if (used > r.vramBytes) throw new SettingsError('vramBytes', `the plan puts ${formatBytes(used)} on ${d.name}, more than the budget of ${formatBytes(r.vramBytes)}. Nothing was loaded.`);
}

export function preparedGpu(r: ResolvedGpu): PreparedGpu | null {
  if (!r.choice || r.vramBytes === null) return null;
  const c = r.choice;
  return { device: c.ggmlName, name: c.device.name, index: c.device.index, software: c.software, vramBytes: r.vramBytes, vramSource: r.vramSource ?? 'given', env: c.env };
}
