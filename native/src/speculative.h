// Speculative decoding: a small draft model proposes k tokens, the target verifies all of them
// in one batched pass (under a streaming schedule: one read of the streamed weights for k+1
// positions) and keeps the longest prefix its own sampler agrees with, plus its own next token.
// Each kept token is sampled from the target's logits at its position with the request's
// sampler, so the output is the target's own (greedy: identical to decoding without a draft).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "llama.h"

namespace rf {

class Context;

struct DraftOpts {
  int max = 8;        // most tokens drafted per pass
  int min = 0;        // drafted even when the draft is unsure
  float p_min = 0.0f; // past `min`, drafting stops below this draft probability (0: never)
};

struct SpecPass {
  int drafted = 0;
  int accepted = 0;
  double draft_ms = 0;
  double verify_ms = 0;
};

struct SpecStats {
  int drafted = 0;
  int accepted = 0;
  int passes = 0;
  double draft_ms = 0;
  double verify_ms = 0;
};

// Chooses k for the next pass from what the passes so far measured: the draft's per-token
// acceptance (decayed counts), the time per drafted token, and the verify pass's time for each
// batch size it has run (a pass of k+1 tokens costs more compute than one of 1, even when it
// reads the same bytes). The k that maximises expected tokens per second,
// (1 - a^(k+1)) / (1 - a) / (T_verify(k+1) + k * t_draft); sizes not yet run are estimated
// from those that were, optimistically, so that they get tried. While k is 0 nothing is drafted
// and acceptance is not measured, so every kProbeEvery passes one token is drafted to look again.
class DraftLength {
 public:
  DraftLength(int min, int max);
  int next();
  void observe(const SpecPass& p);

  static constexpr int kProbeEvery = 16;

 private:
  // The median verify time of each batch size (index n), -1 for sizes not run yet.
  std::vector<double> Medians() const;
  static double VerifyMs(const std::vector<double>& t_verify, int n);
  int min_, max_, k_;
  int idle_ = 0;  // passes in a row with k 0
  double accepted_ = 1, rejected_ = 1;  // a weak prior: acceptance 1/2
  double t_draft_ = -1;
  // The verify pass's last kSamples times by batch size (index n): their median, not a mean,
  // so that one pass slowed by something else does not swing k.
  static constexpr size_t kSamples = 8;
  std::vector<std::vector<double>> samples_;
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
