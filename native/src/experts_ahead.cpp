// The expert cache's read-ahead (experts.h): the next layer's experts predicted from this layer's
// router input and read while this layer computes, only while the measured precision pays; a
// guess the real routing did not choose is dropped or counted as read in vain.
#include <algorithm>
#include <cstring>

#include "experts.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "host_tensor.h"

namespace rf {

namespace {

// Read-ahead pays while more of what it reads is used than wasted.
constexpr double kMinPrecision = 0.5;
// While read-ahead does not pay, one micro-batch in this many is still predicted and measured:
// enough for the precision to show when it would pay again (about ten measured predictions lift
// it from nothing to kMinPrecision), at a small fraction of the cost of applying a router on the
// compute thread every time.
constexpr int kQuietPredictEvery = 32;

// The `k` experts the router `w` (rows at `wdata`) scores highest for the input `xv`, by ggml's
// own dot product for the router's type (SIMD), the input converted once to the type that dot
// product takes: a scalar loop over a gpt-oss router (128 x 2880) took about 0.4 ms of the
// compute thread each time, a few per cent of a token. Empty where the type has none.
std::vector<int> TopExperts(const float* xv, const ggml_tensor* w, const char* wdata, int experts, int k) {
  const int64_t n = w->ne[0];
  const auto* cpu = ggml_get_type_traits_cpu(w->type);
  if (!cpu || !cpu->vec_dot) return {};
  const ggml_type vt = cpu->vec_dot_type;
  std::vector<char> xq(ggml_row_size(vt, n));
  if (vt == GGML_TYPE_F32) {
    std::memcpy(xq.data(), xv, static_cast<size_t>(n) * sizeof(float));
  } else {
    const auto* vtraits = ggml_get_type_traits_cpu(vt);
    if (!vtraits || !vtraits->from_float) return {};
    vtraits->from_float(xv, xq.data(), n);
  }
  std::vector<std::pair<float, int>> logits;
  logits.reserve(static_cast<size_t>(experts));
  for (int e = 0; e < experts; e++) {
    float dot = 0;
    cpu->vec_dot(static_cast<int>(n), &dot, 0, wdata + static_cast<size_t>(e) * w->nb[1], 0, xq.data(), 0, 1);
    logits.push_back({dot, e});
  }
  const size_t top = std::min<size_t>(static_cast<size_t>(k), logits.size());
  std::partial_sort(logits.begin(), logits.begin() + static_cast<std::ptrdiff_t>(top), logits.end(),
                    [](const std::pair<float, int>& x, const std::pair<float, int>& y) { return x.first > y.first; });
  std::vector<int> out;
  for (size_t i = 0; i < top; i++) out.push_back(logits[i].second);
  return out;
}

}  // namespace

// The next MoE layer's router applied to this layer's router input (the residual stream moves
// little from one layer to the next): its top experts are read ahead while this layer computes.
void ExpertCache::Predict(int li) {
  Layer& cur = layers_[li];
  Layer& next = layers_[li + 1];
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (precision_ < kMinPrecision && ++quiet_predictions_ % kQuietPredictEvery != 0) return;
  }
  const ggml_tensor* x = cur.router_in;
  const ggml_tensor* w = next.router;
  if (!x || !w || x->type != GGML_TYPE_F32 || x->ne[0] != w->ne[0] || x->ne[1] != 1) return;
  const int k = static_cast<int>(std::max<size_t>(1, cur.need.size()));
  // Dense layers on a GPU: the input is in device memory, the router copied at setup.
  HostCopy xcopy;
  const float* xv = static_cast<const float*>(HostView(x, &xcopy)->data);
  const char* wdata = next.router_host.empty() ? static_cast<const char*>(w->data) : next.router_host.data();
  if (next.router_host.empty() && !IsHostTensor(w)) return;
  std::vector<int> predicted = TopExperts(xv, w, wdata, experts_, k);
  if (predicted.empty()) return;
  std::vector<char> keep(experts_, 0);
  for (int e : predicted) keep[e] = 1;
  std::unique_lock<std::mutex> lock(mu_);
  counters_.predictions += 1;
  // Measured either way; read on only while it pays.
  const bool issue = precision_ >= kMinPrecision;
  if (issue) counters_.predictions_issued += 1;
  const size_t queued = ahead_.size();
  for (int e : predicted) {
    if (!issue) break;
    if (next.slot_of[e] >= 0 || (device_ && next.dslot_of[e] >= 0)) continue;
    int v = VictimLocked(next, keep);
    if (v < 0) break;
    Slot& sl = next.slots[v];
    WastedLocked(next, sl);
    if (sl.expert >= 0) next.slot_of[sl.expert] = -1;
    sl.expert = e;
    sl.pending = static_cast<int>(next.projs.size());
    sl.done = 0;
    sl.prefetched = true;
    sl.last_use = tick_;
    next.slot_of[e] = v;
    counters_.loads += 1;
    counters_.prefetches += 1;
    for (size_t p = 0; p < next.projs.size(); p++) ahead_.push_back({li + 1, v, e, static_cast<int>(p)});
  }
  const size_t jobs = ahead_.size() - queued;
  next.predicted = std::move(predicted);
  lock.unlock();
  WakeIo(jobs);
}

// A slot read ahead and never used is given up (evicted, or its reads dropped): its bytes count
// as read in vain.
void ExpertCache::WastedLocked(Layer& L, const Slot& s) {
  if (!s.prefetched || s.expert < 0) return;
  size_t bytes = 0;
  for (const auto& p : L.projs) bytes += p.slice;
  counters_.prefetch_wasted_bytes += static_cast<double>(bytes);
}

// The layer's real routing has come: read-ahead still queued for experts it did not choose is
// dropped, and a slot left with none of its reads done or in flight is freed again.
void ExpertCache::DropAheadLocked(Layer& L, int li, const std::vector<char>& keep) {
  std::vector<int> dropped_from(L.slots.size(), 0);
  for (auto it = ahead_.begin(); it != ahead_.end();) {
    if (it->layer == li && it->slot >= 0 && !keep[it->expert]) {
      dropped_from[static_cast<size_t>(it->slot)]++;
      counters_.prefetch_dropped += 1;
      it = ahead_.erase(it);
    } else {
      ++it;
    }
  }
  for (size_t s = 0; s < L.slots.size(); s++) {
    if (dropped_from[s] == 0) continue;
    Slot& sl = L.slots[s];
    sl.pending -= dropped_from[s];
    // Some projections were read or are being read: the slot keeps a partial expert, so it is
    // emptied (a read in flight still lands and is counted, then the slot is free).
    if (sl.expert >= 0) {
      if (dropped_from[s] < static_cast<int>(L.projs.size())) WastedLocked(L, sl);
      L.slot_of[sl.expert] = -1;
    }
    sl.expert = -1;
    sl.prefetched = false;
  }
  ready_cv_.notify_all();
}

}  // namespace rf
