// The routing tap of a mixture of experts: what each MoE layer's router chose, token by token,
// recorded and, when a routing trace is replayed, replaced. It sees the router's selection node
// (`ffn_moe_topk-N`, the expert ids of each token in the micro-batch) through the scheduler's
// eval callback, before anything reads it: a replayed choice is written over the ids there, so
// the routing weights (gathered from the router's probabilities by those ids), the expert cache
// and the expert ops all follow the trace, under every policy.
//
// Steps count tokens within a phase (0 the prompt, 1 decoding) of a turn (one generation); as
// recorded, decode steps go on from the prompt's (the published traces number them so). A
// prompt's last layer is computed for its output tokens only (llama.cpp prunes the rest before
// it): a selection with fewer columns than the micro-batch has tokens holds its last tokens.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

struct ggml_tensor;

namespace rf {

struct RouteReplay {
  int prompt_steps = 0;
  int decode_steps = 0;
  // [step][moe layer][slot] expert ids; -1 where the trace has no choice for that layer.
  std::vector<int32_t> prompt;
  std::vector<int32_t> decode;
};

struct RouteConfig {
  std::vector<int> moe_layers;  // the model's MoE layers, ascending: trace layer i is moe_layers[i]
  int experts = 0;
  int used = 0;
  bool record = true;           // keep what was chosen (ids; weights too with record_weights)
  bool record_weights = false;  // also ask for the routing weights (more graph splits)
  bool replay = false;
  RouteReplay trace;
};

struct RouteTaken {
  // Per selection (one MoE layer of one micro-batch): turn, phase, step of its first token, the
  // model's layer, tokens; then `used` expert ids per token in `ids`.
  std::vector<int32_t> selections;
  std::vector<int32_t> ids;
  std::vector<float> weights;  // per id; NaN where not recorded; empty unless weights are recorded
  double replaced_tokens = 0;  // token × layer selections taken from the trace
  int prompt_wraps = 0;        // times the trace's prompt (decode) steps were used up and restarted
  int decode_wraps = 0;
  double dropped_ids = 0;      // past the recording bound
};

class RouteTap {
 public:
  // Returns "" or why the configuration cannot be used.
  std::string Configure(RouteConfig cfg);
  // A llama_decode of n tokens starts; phase 0 prompt, 1 decode (-1: decode when n == 1).
  void OnDecodeStart(int n_tokens, int phase);
  bool Ask(const ggml_tensor* t) const;
  // Off: the tap asks for nothing (no graph split of its own) and records nothing. A run that
  // kept the routing only for the optimum turns it off when no expert cache runs after all.
  void SetActive(bool on) { active_.store(on); }
  // After a node the tap asked for: replace (replay) and record. Must run before the expert
  // cache sees the selection.
  void Computed(ggml_tensor* t);
  RouteTaken Take();

 private:
  int MoeIndex(const ggml_tensor* t, const char* prefix) const;
  void OnSelection(ggml_tensor* ids, int mi);
  void OnWeights(const ggml_tensor* w, int mi);
  const int32_t* TraceRow(int phase, int64_t step, int mi);

  RouteConfig cfg_;
  std::atomic<bool> active_{true};
  std::unordered_map<int, int> moe_index_;  // model layer -> index in moe_layers
  std::mutex mu_;
  int turn_ = -1;
  int last_phase_ = 1;
  int phase_ = 0;
  int batch_tokens_ = 0;
  int64_t step_base_ = 0;        // this micro-batch's first step within its phase
  int64_t phase_steps_[2] = {0, 0};
  int64_t replay_cursor_[2] = {0, 0};  // trace steps consumed per phase (for the wrap count)
  // The rows of the micro-batch in progress, per MoE layer: where its weights go.
  std::vector<size_t> row_start_;
  std::vector<int> row_cols_;
  RouteTaken taken_;
};

}  // namespace rf
