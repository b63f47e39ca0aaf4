// The machine's GPUs, probed in a child process (worker/gpu-probe-main.ts): what the Vulkan
// loader lists and ggml's CUDA devices (for choosing a device and its worker's environment)
// and, for `ramforge devices`, what ggml reports for the Vulkan ones. The CLI's own process
// never loads the addon.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './paths.js';
import type { GpuProbe, VulkanDevice } from '../shared/gpu/gpu-choice.js';
import { cudaDevicesOf, type GgmlDeviceInfo } from '../shared/gpu/cuda-devices.js';

/** What the probe prints (native vulkanDevices() and listDevices(), in worker/gpu-probe-main.ts). */
type ProbedVulkanDevice = VulkanDevice & { vendorId?: number; deviceId?: number; memoryBudget?: boolean };

const PROBE_TIMEOUT_MS = 30_000;

function probeScript(): string {
  return join(packageRoot(), 'out', 'cli', 'gpu-probe.mjs');
}

interface ProbeOutput {
  vulkan?: { built: boolean; error: string | null; devices: ProbedVulkanDevice[] };
  ggml?: GgmlDeviceInfo[] | null;
  error?: string | null;
}

function runProbe(args: string[]): ProbeOutput {
  const script = probeScript();
  if (!existsSync(script)) return { error: `the GPU probe is missing (${script}): run 'npm run build:cli'` };
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Inside Electron the probe runs on Electron's own binary in Node mode.
  if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
  delete env.VK_LOADER_DRIVERS_DISABLE;
  const r = spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as ProbeOutput;
  } catch {
    return { error: r.error ? r.error.message : `the GPU probe ended ${r.signal ? `with ${r.signal}` : `with exit code ${r.status}`}: ${(r.stderr ?? '').trim().split('\n').pop() ?? ''}` };
  }
}

function toProbe(o: ProbeOutput): GpuProbe {
  if (!o.vulkan) return { built: false, error: o.error ?? 'the GPU probe printed nothing', devices: [], cuda: [] };
  const devices: VulkanDevice[] = o.vulkan.devices.map((d) => ({ index: d.index, name: d.name, type: d.type, apiVersion: d.apiVersion, memoryTotal: d.memoryTotal, memoryFree: d.memoryFree }));
  // The probe inherits this process's CUDA_VISIBLE_DEVICES, as the worker will.
  const cuda = cudaDevicesOf(o.ggml ?? null, process.env.CUDA_VISIBLE_DEVICES);
  return { built: o.vulkan.built, error: o.vulkan.error ?? o.error ?? null, devices, cuda };
}

let cached: GpuProbe | null = null;

/** The Vulkan devices and ggml's CUDA devices (once per process). */
export function probeGpus(): GpuProbe {
  cached ??= toProbe(runProbe(['vulkan']));
  return cached;
}

/** The Vulkan devices and, with every one of them visible, ggml's devices (Vulkan<i> in the same order). */
export function probeGgmlDevices(): { probe: GpuProbe; ggml: GgmlDeviceInfo[] | null; error: string | null } {
  const probe = probeGpus();
  if (probe.devices.length === 0) return { probe, ggml: null, error: null };
  const o = runProbe(['ggml', probe.devices.map((d) => d.index).join(',')]);
  return { probe, ggml: o.ggml ?? null, error: o.error ?? null };
}
