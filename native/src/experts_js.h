// The expert cache's JS surface: its part of residencyConfigure's stream plan
// (stream.experts) checked into an ExpertConfig, and its part of residencySample.
#pragma once
#include <napi.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "experts.h"
#include "residency_args.h"

struct ggml_tensor;

namespace rf {

// stream.experts: {tensors: [{name, layer, file, offset}], slotsPerLayer, staging?, predict?, evict?, ioThreads?}
bool ParseExperts(const Napi::Value& v, size_t n_files, Args* args, ExpertConfig* out);
// Every expert tensor is named in the model and lies at its file offset in the model's mapping.
void CheckExpertOffsets(const ExpertConfig& experts, const std::unordered_map<std::string, ggml_tensor*>& tensors,
                        const std::vector<std::vector<Mapping>>& maps, Args* args);
// residencySample().experts: the counters and, per MoE layer, each slot's expert and each expert's uses.
Napi::Object ExpertCountersObject(Napi::Env env, ExpertCache& ec);

}  // namespace rf
