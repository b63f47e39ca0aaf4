// The load settings' GPU: which device the VRAM budget is on (default: the first CUDA device,
// else the first hardware Vulkan GPU; a software device such as lavapipe only when picked; none),
// and the devices the machine has with their memory as ggml reports it. The list is probed out
// of process (`ramforge devices`); each device is picked by what `--gpu` takes for it.
import { useEffect, useState } from 'react';
import { getApi } from '../api.js';
import { asGpuList, type GpuListInfo } from '../lib/gpu-model.js';
import { formatBytes } from '../lib/format.js';
import { useStore } from '../store/index.js';
import { errorText } from '../store/types.js';

export function GpuSettings() {
  const gpu = useStore((s) => s.settings.gpu);
  const setSettings = useStore((s) => s.setSettings);
  const [list, setList] = useState<GpuListInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    getApi()
      .listDevices()
      .then((raw) => live && setList(asGpuList(raw)))
      .catch((e: unknown) => live && setError(errorText(e)));
    return () => {
      live = false;
    };
  }, []);
  return <GpuFields gpu={gpu} list={list} error={error} onChange={(g) => setSettings({ gpu: g })} />;
}

interface GpuFieldsProps {
  /** The settings' `gpu`: null = the default device. */
  gpu: string | null;
  /** null while probing. */
  list: GpuListInfo | null;
  error: string | null;
  onChange: (gpu: string | null) => void;
}

export function GpuFields({ gpu, list, error, onChange }: GpuFieldsProps) {
  const value = gpu === null ? 'default' : gpu;
  return (
    <>
      <label className="field" title="The GPU the VRAM budget is on. Default: the first CUDA device, else the first hardware Vulkan GPU (a software device only when picked here).">
        <span>GPU</span>
        <select data-testid="setting-gpu" value={value} onChange={(e) => onChange(e.currentTarget.value === 'default' ? null : e.currentTarget.value)}>
          <option value="default">default{list && !list.devices.some((d) => d.isDefault) ? ' (none: no hardware GPU)' : ''}</option>
          <option value="none">none</option>
          {list?.devices.map((d) => (
            <option key={d.gpu} value={d.gpu}>
              {d.gpu}: {d.name}
              {d.software ? ' (software)' : ''}
            </option>
          ))}
        </select>
      </label>
      <div className="field wide dim" data-testid="gpu-devices">
        {error
          ? `GPUs: ${error}`
          : !list
            ? 'GPUs: probing…'
            : list.devices.length === 0
              ? `GPUs: none${list.error ? ` (${list.error})` : ''}`
              : list.devices.map((d) => (
                  <div key={d.gpu} data-testid="gpu-device">
                    {d.gpu}: {d.name} · {d.backend} · {d.type}
                    {d.software ? ' · software device (used only when picked)' : ''}
                    {d.isDefault ? ' · default' : ''} · {formatBytes(d.memoryFree)} free of {formatBytes(d.memoryTotal)}
                  </div>
                ))}
      </div>
    </>
  );
}
