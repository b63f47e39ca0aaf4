// Speculative decoding: a small draft model proposes k tokens, the target verifies all of them
// in one batched pass (under a streaming schedule: one read of the streamed weights for k+1
// positions) and keeps the longest prefix its own sampler agrees with, plus its own next token.
// Each kept token is sampled from the target's logits at its position with the request's
// sampler, so the output is the target's own (greedy: identical to decoding without a draft).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "draft_length.h"
#include "llama.h"

namespace rf {

class Context;

struct DraftOpts {
  int max = 8;        // most tokens drafted per pass
  int min = 0;        // drafted even when the draft is unsure
  float p_min = 0.0f; // past `min`, drafting stops below this draft probability (0: never)
};

struct SpecStats {
  int drafted = 0;
  int accepted = 0;
  int passes = 0;
  double draft_ms = 0;
  double verify_ms = 0;
};


// Runs the generation loop after the prompt: the target holds the prompt in its KV (its
// cached() tokens) and `first` was sampled from its last logits and already emitted. emit()
// receives each further token in order with the pass it came from (on the pass's first token,
// else nullptr) and returns false to stop. Returns "" or why decoding failed.
std::string SpeculativeDecode(Context* target, Context* draft, const DraftOpts& opts, llama_sampler* smpl,
                              llama_token first, const std::function<bool(llama_token, const SpecPass*)>& emit,
                              SpecStats* stats);

// The draft's weights that are byte-identical to the target's (checked by the caller) are
// pointed at the target's copy, so a draft made of the target's own layers costs no memory.
// Returns "" or why a tensor could not be shared (missing, other type or shape).
std::string ShareWeights(const llama_model* draft, const llama_model* target, const std::vector<std::string>& names,
                         double* shared_bytes);

}  // namespace rf
