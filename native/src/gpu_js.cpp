// The GPU tier's native surface: the Vulkan physical devices as the loader lists them (without
// initialising ggml, whose Vulkan backend reads GGML_VK_VISIBLE_DEVICES once, when it starts:
// the caller must know the devices before it picks that variable for a worker), the memory a
// context holds on each buffer type (what a run measured against its VRAM budget), and the
// greedy token at every position of a sequence (teacher-forced agreement between devices).
#include "gpu_js.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../src/llama-ext.h"  // llama_get_memory_breakdown: the per-buffer-type ledger llama.cpp itself prints
#include "common.h"
#include "context.h"
#include "generate.h"
#include "residency.h"
#include "ggml-backend.h"
#include "llama.h"

#if defined(RAMFORGE_VULKAN)
#include <vulkan/vulkan.h>
#endif

namespace rf {
namespace {

#if defined(RAMFORGE_VULKAN)
const char* TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

bool HasExtension(VkPhysicalDevice d, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(d, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  if (n > 0) vkEnumerateDeviceExtensionProperties(d, nullptr, &n, ext.data());
  for (const auto& e : ext)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::string VersionText(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." + std::to_string(VK_API_VERSION_PATCH(v));
}
#endif

// vulkanDevices() -> { built, error, devices: [{ index, name, type, apiVersion, vendorId, deviceId, memoryTotal, memoryFree, memoryBudget }] }
// index is the position in vkEnumeratePhysicalDevices (what GGML_VK_VISIBLE_DEVICES names);
// memoryTotal sums the heaps ggml counts (device-local ones; every heap of an integrated GPU).
Napi::Value VulkanDevices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  Napi::Array list = Napi::Array::New(env);
  out.Set("devices", list);
#if defined(RAMFORGE_VULKAN)
  out.Set("built", true);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "ramforge-devices";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  VkInstance inst = VK_NULL_HANDLE;
  VkResult rc = vkCreateInstance(&ci, nullptr, &inst);
  if (rc != VK_SUCCESS) {
    // No driver (ICD) installed, or none that loads: no device, and the reason.
    out.Set("error", "vkCreateInstance failed (VkResult " + std::to_string(static_cast<int>(rc)) + "): no Vulkan driver is installed or none loads");
    return out;
  }
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(inst, &n, nullptr);
  std::vector<VkPhysicalDevice> devs(n);
  if (n > 0) vkEnumeratePhysicalDevices(inst, &n, devs.data());
  for (uint32_t i = 0; i < n; i++) {
    VkPhysicalDeviceProperties p{};
    vkGetPhysicalDeviceProperties(devs[i], &p);
    // As ggml_backend_vk_get_device_memory counts it: the device-local heaps (every heap of an
    // integrated GPU); free is the driver's budget less its usage where VK_EXT_memory_budget
    // exists, else the heap's size.
    const bool budget = p.apiVersion >= VK_API_VERSION_1_1 && HasExtension(devs[i], VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    VkPhysicalDeviceMemoryBudgetPropertiesEXT bp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 m2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    if (budget) m2.pNext = &bp;
    vkGetPhysicalDeviceMemoryProperties2(devs[i], &m2);
    const VkPhysicalDeviceMemoryProperties& m = m2.memoryProperties;
    const bool integrated = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    double total = 0, free = 0;
    for (uint32_t h = 0; h < m.memoryHeapCount; h++) {
      if (!integrated && !(m.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
      total += static_cast<double>(m.memoryHeaps[h].size);
      free += budget ? static_cast<double>(bp.heapBudget[h]) - static_cast<double>(bp.heapUsage[h]) : static_cast<double>(m.memoryHeaps[h].size);
    }
    Napi::Object d = Napi::Object::New(env);
    d.Set("index", i);
    d.Set("name", p.deviceName);
    d.Set("type", TypeName(p.deviceType));
    d.Set("apiVersion", VersionText(p.apiVersion));
    d.Set("vendorId", p.vendorID);
    d.Set("deviceId", p.deviceID);
    d.Set("memoryTotal", total);
    d.Set("memoryFree", free);
    d.Set("memoryBudget", budget);
    list.Set(list.Length(), d);
  }
  vkDestroyInstance(inst, nullptr);
  out.Set("error", env.Null());
#else
  out.Set("built", false);
  out.Set("error", "this build has no Vulkan backend (glslc, libvulkan-dev or spirv-headers were missing when llama.cpp was built)");
#endif
  return out;
}

Context* UsableContext(const Napi::CallbackInfo& info, const char* usage) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() || !Context::Is(info[0].As<Napi::Object>())) {
    ThrowError(env, "BAD_ARGUMENT", usage);
    return nullptr;
  }
  Context* c = Context::Unwrap(info[0].As<Napi::Object>());
  if (!c || !c->get()) {
    ThrowError(env, "BAD_ARGUMENT", "the context was freed");
    return nullptr;
  }
  if (c->busy().load()) {
    ThrowError(env, "BUSY", "the context is busy");
    return nullptr;
  }
  return c;
}

// memoryBreakdown(ctx) -> [{ buffer, device, host, model, context, compute }]: bytes llama.cpp
// allocated on each buffer type for the weights, the KV cache and the compute buffers.
Napi::Value MemoryBreakdown(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Context* c = UsableContext(info, "memoryBreakdown(context)");
  if (!c) return env.Undefined();
  Napi::Array out = Napi::Array::New(env);
  for (const auto& [buft, mb] : llama_get_memory_breakdown(c->get())) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("buffer", ggml_backend_buft_name(buft));
    ggml_backend_dev_t dev = ggml_backend_buft_get_device(buft);
    if (dev) o.Set("device", ggml_backend_dev_name(dev));
    else o.Set("device", env.Null());
    o.Set("host", ggml_backend_buft_is_host(buft));
    o.Set("model", static_cast<double>(mb.model));
    o.Set("context", static_cast<double>(mb.context));
    o.Set("compute", static_cast<double>(mb.compute));
    out.Set(out.Length(), o);
  }
  return out;
}

// greedyPositions(ctx, tokens) -> Int32Array: the most likely next token after each prefix
// tokens[0..i], from one pass over the sequence (cache cleared first).
Napi::Value GreedyPositions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Context* c = UsableContext(info, "greedyPositions(context, tokens: Int32Array, stepFrom?: number)");
  if (!c) return env.Undefined();
  if (info.Length() < 2 || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    ThrowError(env, "BAD_ARGUMENT", "greedyPositions(context, tokens: Int32Array)");
    return env.Undefined();
  }
  Napi::Int32Array t = info[1].As<Napi::Int32Array>();
  const llama_model* model = llama_get_model(c->get());
  const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  const int n = static_cast<int>(t.ElementLength());
  if (n == 0 || n >= static_cast<int>(llama_n_ctx(c->get()))) {
    ThrowError(env, "BAD_ARGUMENT", "greedyPositions: between 1 token and the context's length");
    return env.Undefined();
  }
  for (int i = 0; i < n; i++)
    if (t[i] < 0 || t[i] >= n_vocab) {
      ThrowError(env, "BAD_ARGUMENT", "greedyPositions: token " + std::to_string(t[i]) + " is outside the vocabulary");
      return env.Undefined();
    }
  // coldExperts: the expert cache starts empty, as the generation this pass is set against did.
  if (info.Length() > 3 && info[3].IsBoolean() && info[3].As<Napi::Boolean>().Value() && c->residency())
    if (ExpertCache* ec = c->residency()->experts()) ec->Empty();
  LogMark();
  llama_memory_clear(llama_get_memory(c->get()), true);
  c->cached().clear();
  const int n_batch = static_cast<int>(llama_n_batch(c->get()));
  // Positions from stepFrom on are decoded one token a batch, as generation decodes them
  // (teacher forcing: what the model picks at each step of a given continuation).
  int step_from = n;
  if (info.Length() > 2 && info[2].IsNumber()) step_from = std::max(0, info[2].As<Napi::Number>().Int32Value());
  Napi::Int32Array out = Napi::Int32Array::New(env, static_cast<size_t>(n));
  llama_batch b = llama_batch_init(n_batch, 0, 1);
  for (int start = 0, k = 0; start < n; start += k) {
    k = start >= step_from ? 1 : std::min({n_batch, n - start, step_from - start});
    b.n_tokens = k;
    for (int j = 0; j < k; j++) {
      b.token[j] = t[start + j];
      b.pos[j] = start + j;
      b.n_seq_id[j] = 1;
      b.seq_id[j][0] = 0;
      b.logits[j] = 1;
    }
    if (int rc = llama_decode(c->get(), b); rc != 0) {
      llama_batch_free(b);
      std::string why = LogErrorsSinceMark();
      ThrowError(env, "DECODE_FAILED", "llama_decode failed (" + std::to_string(rc) + ")" + (why.empty() ? "" : ": " + why));
      return env.Undefined();
    }
    for (int j = 0; j < k; j++) {
      const float* l = llama_get_logits_ith(c->get(), j);
      out[start + j] = static_cast<int32_t>(std::max_element(l, l + n_vocab) - l);
    }
  }
  llama_batch_free(b);
  // The cache now holds the sequence, but not as the generate path tracks it: start over next time.
  llama_memory_clear(llama_get_memory(c->get()), true);
  return out;
}

}  // namespace

void RegisterGpu(Napi::Env env, Napi::Object exports) {
  exports.Set("vulkanDevices", Napi::Function::New(env, VulkanDevices));
  exports.Set("memoryBreakdown", Napi::Function::New(env, MemoryBreakdown));
  exports.Set("greedyPositions", Napi::Function::New(env, GreedyPositions));
}

}  // namespace rf
