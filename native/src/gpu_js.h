// The GPU tier's native surface (gpu_js.cpp): vulkanDevices(), memoryBreakdown(ctx),
// greedyPositions(ctx, tokens).
#pragma once
#include <napi.h>

namespace rf {

void RegisterGpu(Napi::Env env, Napi::Object exports);

}  // namespace rf
