// `ramforge devices [--json]`: the GPUs a run can use (Vulkan's, then CUDA's), with their memory
// as ggml reports it, which are software devices (used only when named), and which one runs use
// by default.
import type { CommandSpec } from '../args.js';
import { EXIT } from '../../shared/errors.js';
import { probeGgmlDevices } from '../../node/gpu-devices.js';
import { formatGpuList, gpuList } from '../../shared/gpu/device-list.js';

export const command: CommandSpec = {
  name: 'devices',
  summary: 'list the GPUs (Vulkan, CUDA) a run can offload to, with their memory, and which is used by default',
  positionals: [],
  flags: [{ name: 'json', type: 'boolean', description: 'print as JSON (docs/cli-json.md, "devices")' }],
  details:
    'Each backend numbers its own devices: --gpu 0 is Vulkan device 0, --gpu cuda:0 is CUDA device 0; --gpu also takes part of a name (a CUDA device first).\n' +
    'By default a run uses the first CUDA device, else the first hardware Vulkan GPU. A software device (Mesa\'s lavapipe: a CPU-type Vulkan device) is listed but used only when --gpu names it.\n' +
    'Exit codes: 0 whenever the list was made (an empty one included).',
  async run(args) {
    const { probe, ggml, error } = probeGgmlDevices();
    const list = gpuList(probe, ggml, error);
    process.stdout.write(args.flags.json ? JSON.stringify(list, null, 2) + '\n' : formatGpuList(list));
    return EXIT.ok;
  },
};
