// `ramforge devices [--json]`: the GPUs a run can use, with their memory as ggml reports it,
// which are software devices (used only when named), and which one runs use by default.
import type { CommandSpec } from '../args.js';
import { EXIT } from '../../shared/errors.js';
import { probeGgmlDevices } from '../../node/gpu-devices.js';
import { formatGpuList, gpuList } from '../../shared/gpu/device-list.js';

export const command: CommandSpec = {
  name: 'devices',
  summary: 'list the GPUs (Vulkan) a run can offload to, with their memory, and which is used by default',
  positionals: [],
  flags: [{ name: 'json', type: 'boolean', description: 'print as JSON (docs/cli-json.md, "devices")' }],
  details:
    'A software device (Mesa\'s lavapipe: a CPU-type Vulkan device) is listed but used only when --gpu names it (its index or part of its name).\n' +
    'Exit codes: 0 whenever the list was made (an empty one included).',
  async run(args) {
    const { probe, ggml, error } = probeGgmlDevices();
    const list = gpuList(probe, ggml, error);
    process.stdout.write(args.flags.json ? JSON.stringify(list, null, 2) + '\n' : formatGpuList(list));
    return EXIT.ok;
  },
};
