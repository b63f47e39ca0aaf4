// routing.h: the tap's bookkeeping of turns, phases and steps, the trace's choice written over
// the router's, and what was chosen kept until JS takes it.
#include "routing.h"

#include "host_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "ggml.h"

namespace rf {

namespace {

constexpr const char* kTopk = "ffn_moe_topk";
// The routing weights as the expert ops get them, in the order the graph computes them: the
// gathered probabilities, then (some architectures) their softmax, then (most) their
// normalisation. The last one computed is the one kept.
constexpr const char* kWeights[] = {"ffn_moe_weights", "ffn_moe_weights_softmax", "ffn_moe_weights_norm"};
// What one recording may hold between two takes (the host takes after every generation): about
// 8 MiB of ids, a prompt of several thousand tokens on the largest models.
constexpr size_t kMaxIds = size_t(2) << 20;

bool HasPrefix(const char* name, const char* prefix) {
  size_t n = std::strlen(prefix);
  return std::strncmp(name, prefix, n) == 0 && name[n] == '-';
}

}  // namespace

std::string RouteTap::Configure(RouteConfig cfg) {
  if (cfg.experts < 1 || cfg.used < 1 || cfg.used > cfg.experts || cfg.moe_layers.empty()) return "routing: experts, experts used and MoE layers are required";
  const size_t per_step = cfg.moe_layers.size() * static_cast<size_t>(cfg.used);
  if (cfg.replay) {
    const RouteReplay& r = cfg.trace;
    if (r.prompt_steps < 0 || r.decode_steps < 1) return "routing trace: it has no decode steps";
    if (r.prompt.size() != static_cast<size_t>(r.prompt_steps) * per_step || r.decode.size() != static_cast<size_t>(r.decode_steps) * per_step)
      return "routing trace: the steps do not match its layers and experts per token";
    for (const auto* v : {&r.prompt, &r.decode})
      for (int32_t e : *v)
        if (e < -1 || e >= cfg.experts) return "routing trace: an expert id is out of range";
  }
  std::lock_guard<std::mutex> l(mu_);
  moe_index_.clear();
  for (size_t i = 0; i < cfg.moe_layers.size(); i++) moe_index_[cfg.moe_layers[i]] = static_cast<int>(i);
  row_start_.assign(cfg.moe_layers.size(), 0);
  row_cols_.assign(cfg.moe_layers.size(), 0);
  cfg_ = std::move(cfg);
  return "";
}

void RouteTap::OnDecodeStart(int n_tokens, int phase) {
  std::lock_guard<std::mutex> l(mu_);
  phase_ = phase < 0 ? (n_tokens == 1 ? 1 : 0) : phase;
  // A prompt after decoding (or the first prompt) begins a turn: steps count from 0 again, and a
  // replayed trace starts over.
  if (phase_ == 0 && last_phase_ == 1) {
    turn_++;
    phase_steps_[0] = phase_steps_[1] = 0;
    replay_cursor_[0] = replay_cursor_[1] = 0;
  }
  if (turn_ < 0) turn_ = 0;
  last_phase_ = phase_;
  batch_tokens_ = n_tokens;
  step_base_ = phase_steps_[phase_];
  phase_steps_[phase_] += n_tokens;
  std::fill(row_cols_.begin(), row_cols_.end(), 0);
  if (cfg_.replay) {
    const int steps = phase_ == 0 ? cfg_.trace.prompt_steps : cfg_.trace.decode_steps;
    if (steps > 0) {
      int64_t wraps = (phase_steps_[phase_] - 1) / steps;
      if (wraps > replay_cursor_[phase_]) {
        (phase_ == 0 ? taken_.prompt_wraps : taken_.decode_wraps) += static_cast<int>(wraps - replay_cursor_[phase_]);
        replay_cursor_[phase_] = wraps;
      }
    }
  }
}

bool RouteTap::Ask(const ggml_tensor* t) const {
  if (!active_.load()) return false;
  if (HasPrefix(t->name, kTopk)) return true;
  if (cfg_.record_weights)
    for (const char* w : kWeights)
      if (HasPrefix(t->name, w)) return true;
  return false;
}

int RouteTap::MoeIndex(const ggml_tensor* t, const char* prefix) const {
  if (!HasPrefix(t->name, prefix)) return -1;
  auto it = moe_index_.find(std::atoi(t->name + std::strlen(prefix) + 1));
  return it == moe_index_.end() ? -1 : it->second;
}

void RouteTap::Computed(ggml_tensor* t) {
  if (!active_.load()) return;
  int mi = MoeIndex(t, kTopk);
  if (mi >= 0) {
    if (t->type == GGML_TYPE_I32 && t->ne[0] == cfg_.used) {
      // On a GPU the selection is in device memory: read (and, replaying, written) through a copy.
      HostCopy copy;
      ggml_tensor* ids = const_cast<ggml_tensor*>(HostView(t, &copy));
      OnSelection(ids, mi);
      if (cfg_.replay) WriteBack(t, copy);
    }
    return;
  }
  if (!cfg_.record_weights) return;
  for (const char* w : kWeights) {
    mi = MoeIndex(t, w);
    if (mi >= 0) {
      HostCopy copy;
      OnWeights(HostView(t, &copy), mi);
      return;
    }
  }
}

const int32_t* RouteTap::TraceRow(int phase, int64_t step, int mi) {
  const RouteReplay& r = cfg_.trace;
  const int steps = phase == 0 ? r.prompt_steps : r.decode_steps;
  if (steps <= 0) return nullptr;
  const auto& v = phase == 0 ? r.prompt : r.decode;
  const size_t at = (static_cast<size_t>(step % steps) * cfg_.moe_layers.size() + static_cast<size_t>(mi)) * static_cast<size_t>(cfg_.used);
  return v[at] < 0 ? nullptr : v.data() + at;
}

void RouteTap::OnSelection(ggml_tensor* ids, int mi) {
  std::lock_guard<std::mutex> l(mu_);
  const int64_t cols = ids->ne[1];
  // Fewer selections than tokens: the micro-batch's last tokens (the outputs) reached this layer.
  const int64_t first = step_base_ + std::max<int64_t>(0, batch_tokens_ - cols);
  const int k = cfg_.used;
  auto at = [&](int64_t i, int64_t j) {
    return reinterpret_cast<int32_t*>(static_cast<char*>(ids->data) + i * ids->nb[0] + j * ids->nb[1]);
  };
  if (cfg_.replay)
    for (int64_t j = 0; j < cols; j++) {
      const int32_t* row = TraceRow(phase_, first + j, mi);
      if (!row) continue;
      for (int i = 0; i < k; i++) *at(i, j) = row[i];
      taken_.replaced_tokens += 1;
    }
  if (!cfg_.record) return;
  if (taken_.ids.size() + static_cast<size_t>(cols * k) > kMaxIds) {
    taken_.dropped_ids += static_cast<double>(cols * k);
    return;
  }
  row_start_[static_cast<size_t>(mi)] = taken_.ids.size();
  row_cols_[static_cast<size_t>(mi)] = static_cast<int>(cols);
  // As the published traces number them: decode steps go on from the turn's prompt steps.
  const int64_t label = first + (phase_ == 1 ? phase_steps_[0] : 0);
  taken_.selections.insert(taken_.selections.end(), {turn_, phase_, static_cast<int32_t>(label), cfg_.moe_layers[static_cast<size_t>(mi)], static_cast<int32_t>(cols)});
  for (int64_t j = 0; j < cols; j++)
    for (int i = 0; i < k; i++) taken_.ids.push_back(*at(i, j));
  if (cfg_.record_weights) taken_.weights.resize(taken_.ids.size(), std::nanf(""));
}

void RouteTap::OnWeights(const ggml_tensor* w, int mi) {
  std::lock_guard<std::mutex> l(mu_);
  const int cols = row_cols_[static_cast<size_t>(mi)];
  const int k = cfg_.used;
  if (cols == 0 || w->type != GGML_TYPE_F32) return;
  // [1, k, cols] (gathered) or [k, cols] (normalised): k values per token either way.
  const bool flat = w->ne[0] == k;
  if (!(flat ? w->ne[1] == cols : (w->ne[0] == 1 && w->ne[1] == k && w->ne[2] == cols))) return;
  const size_t base = row_start_[static_cast<size_t>(mi)];
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < k; i++) {
      const char* p = static_cast<const char*>(w->data) + (flat ? i * w->nb[0] + j * w->nb[1] : i * w->nb[1] + j * w->nb[2]);
      taken_.weights[base + static_cast<size_t>(j * k + i)] = *reinterpret_cast<const float*>(p);
    }
}

RouteTaken RouteTap::Take() {
  std::lock_guard<std::mutex> l(mu_);
  RouteTaken out = std::move(taken_);
  taken_ = RouteTaken();
  std::fill(row_cols_.begin(), row_cols_.end(), 0);
  return out;
}

}  // namespace rf
