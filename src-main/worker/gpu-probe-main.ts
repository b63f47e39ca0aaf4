// Entry of the GPU probe, a short-lived process of its own: it loads the native addon and prints
// what the machine's Vulkan loader and ggml see, as one JSON line. Its own process because ggml
// reads GGML_VK_VISIBLE_DEVICES once, when the addon loads (so listing ggml's view of given
// devices means setting it first, which this process may do to itself), and because a Vulkan
// driver that crashes takes only the probe with it. ggml's list with no Vulkan device visible
// holds its other GPUs (CUDA's, with their memory): the only way to know those.
//   gpu-probe.mjs vulkan         → { vulkan, ggml }    (ggml started with no Vulkan device)
//   gpu-probe.mjs ggml 0,1       → { vulkan, ggml }    (ggml's devices with those visible)
import { loadAddon, type NativeDevice } from '../native/addon.js';

const [mode, visible] = process.argv.slice(2);
process.env.GGML_VK_VISIBLE_DEVICES = mode === 'ggml' ? (visible ?? '') : '';
try {
  const addon = loadAddon();
  const vulkan = addon.vulkanDevices();
  let ggml: NativeDevice[] | null = null;
  let error: string | null = null;
  // Apart: the Vulkan list stands when starting ggml's backends fails.
  try {
    ggml = addon.listDevices();
  } catch (e) {
    error = `ggml's device list: ${(e as Error).message}`;
  }
  process.stdout.write(JSON.stringify({ vulkan, ggml, error }) + '\n');
} catch (e) {
  process.stdout.write(JSON.stringify({ error: (e as Error).message }) + '\n');
  process.exitCode = 1;
}
