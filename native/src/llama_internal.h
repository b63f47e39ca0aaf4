// llama.cpp's own (internal, C++) accessor for the loaded weight tensors: declared once here.
// We link llama statically, so it is reachable, and it is the only way to learn where each
// weight lives (context.cpp's inventory, the residency engine, the draft's shared weights).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "llama.h"

struct ggml_tensor;

const std::vector<std::pair<std::string, ggml_tensor*>>& llama_internal_get_tensor_map(const llama_model* model);
