// The expert cache's compute side (experts.h): what the scheduler's eval callback asks before
// and after each node, routing a micro-batch to slots (or to the staging buffer), the selection
// rewritten to slot indices, waiting for experts, and the next layer's prediction.
#include "experts.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "clock.h"
#include "ggml.h"

namespace rf {

namespace {

// The router's selection node of a layer: "ffn_moe_topk-N".
constexpr const char* kTopk = "ffn_moe_topk";
// Read-ahead pays while more of what it reads is used than wasted.
constexpr double kMinPrecision = 0.5;
// Weight of the newest prediction in the precision measure (about the last 16 predictions).
constexpr double kPrecisionAlpha = 1.0 / 16;
// While read-ahead does not pay, one micro-batch in this many is still predicted and measured:
// enough for the precision to show when it would pay again, at a fraction of the cost of
// applying a router on the compute thread.
constexpr int kQuietPredictEvery = 8;

}  // namespace

int ExpertCache::LayerOfProj(const ggml_tensor* w, int* proj) const {
  auto it = proj_of_.find(w);
  if (it == proj_of_.end()) return -1;
  *proj = it->second.second;
  return it->second.first;
}

// The expert weight an op reads: MUL_MAT_ID's src[0], ADD_ID's src[1] (a bias).
static const ggml_tensor* ExpertOperand(const ggml_tensor* t) {
  if (t->op == GGML_OP_MUL_MAT_ID) return t->src[0];
  if (t->op == GGML_OP_ADD_ID) return t->src[1];
  return nullptr;
}

// The layer whose router node this is ("ffn_moe_topk-N"), or -1.
int ExpertCache::TopkLayer(const ggml_tensor* t) const {
  if (std::strncmp(t->name, kTopk, std::strlen(kTopk)) != 0) return -1;
  const char* dash = std::strrchr(t->name, '-');
  auto it = dash ? by_index_.find(std::atoi(dash + 1)) : by_index_.end();
  return it == by_index_.end() ? -1 : it->second;
}

bool ExpertCache::Ask(ggml_tensor* t) {
  if (std::strncmp(t->name, kTopk, std::strlen(kTopk)) == 0) {
    // A new micro-batch of the layer: its routing is known once this node has run.
    int li = TopkLayer(t);
    if (li >= 0) layers_[li].prepared = false;
    return true;
  }
  if (t->op == GGML_OP_MUL_MAT && t->src[0]) {
    auto r = router_of_.find(t->src[0]);
    if (r != router_of_.end()) layers_[r->second].router_in = t->src[1];
  }
  const ggml_tensor* w = ExpertOperand(t);
  int p = -1;
  int li = w ? LayerOfProj(w, &p) : -1;
  if (li >= 0) {
    Layer& L = layers_[li];
    // No routing seen for this micro-batch (a graph whose selection node has another name):
    // every expert of the layer, at its own index, is correct whatever the selection says.
    if (!L.prepared) Stage(L, li, {});
    const bool stop = PointSelection(L, t);
    WaitReady(L, p);
    return stop || !error().empty();
  }
  // A selection rewritten in place: between it and the layer's first expert op every node runs
  // on its own, so that it is rewritten only after everything that reads it as expert ids ran.
  for (const auto& L : layers_)
    if (L.rewrite && L.direct != 1) return true;
  return false;
}

bool ExpertCache::PointSelection(Layer& L, ggml_tensor* op) {
  ggml_tensor*& sel = op->src[2];
  ggml_tensor* copy = L.slot_ids.get();
  if (L.staged) {
    // The staging buffer holds expert e at index e: the ops read expert ids.
    if (copy && sel == copy) sel = L.ids_source;
    return L.direct == 0;
  }
  if (L.direct != 0 && sel && L.topk && (sel == L.topk || sel == copy)) {
    if (L.rewrite) {
      FillSlotIds(L);
      L.rewrite = false;
    }
    L.direct = 1;
    if (sel != L.slot_ids.get()) {
      L.ids_source = sel;
      sel = L.slot_ids.get();
    }
    return false;
  }
  L.direct = 0;
  if (L.rewrite) {
    Rewrite(L, sel);
    L.rewrite = false;
  }
  return true;
}

bool ExpertCache::Computed(ggml_tensor* t) {
  if (std::strncmp(t->name, kTopk, std::strlen(kTopk)) == 0) {
    int li = TopkLayer(t);
    if (li >= 0 && t->type == GGML_TYPE_I32) {
      Route(layers_[li], li, t);
      if (cfg_.predict && li + 1 < static_cast<int>(layers_.size()) && t->ne[1] == 1) Predict(li);
    }
    return error().empty();
  }
  const ggml_tensor* w = ExpertOperand(t);
  int p = -1;
  int li = w ? LayerOfProj(w, &p) : -1;
  if (li >= 0) {
    Layer& L = layers_[li];
    if (++L.ops_done >= static_cast<int>(L.projs.size())) {
      Restore(L);
      if (L.staged) PointAt(L, false);
      L.prepared = false;
      L.ops_done = 0;
    }
    return error().empty();
  }
  return true;
}

void ExpertCache::PointAt(Layer& L, bool staging) {
  for (auto& p : L.projs) p.t->data = staging ? p.staging : p.cache;
  L.staged = staging;
}

// A slot for a new expert: an empty one, else the least recently used that is neither being
// read nor in `keep`; -1 when every other slot is still being read.
int ExpertCache::VictimLocked(Layer& L, const std::vector<char>& keep) {
  int best = -1;
  auto colder = [&](const Slot& a, const Slot& b) {
    if (cfg_.lfu && L.freq[a.expert] != L.freq[b.expert]) return L.freq[a.expert] < L.freq[b.expert];
    return a.last_use < b.last_use;
  };
  for (int s = 0; s < static_cast<int>(L.slots.size()); s++) {
    const Slot& sl = L.slots[s];
    if (sl.pending > 0 || (sl.expert >= 0 && keep[sl.expert])) continue;
    if (sl.expert < 0) return s;
    if (best < 0 || colder(sl, L.slots[best])) best = s;
  }
  return best;
}

void ExpertCache::Route(Layer& L, int li, const ggml_tensor* ids) {
  {
    std::lock_guard<std::mutex> l(mu_);
    PromoteStagedLocked();
  }
  if (L.staged) PointAt(L, false);
  L.ops_done = 0;
  L.topk = ids;
  std::vector<char> keep(experts_, 0);
  std::vector<int> need;
  for (int64_t j = 0; j < ids->ne[1]; j++)
    for (int64_t i = 0; i < ids->ne[0]; i++) {
      int e = *reinterpret_cast<const int32_t*>(static_cast<const char*>(ids->data) + i * ids->nb[0] + j * ids->nb[1]);
      if (e >= 0 && e < experts_ && !keep[e]) {
        keep[e] = 1;
        need.push_back(e);
      }
    }
  std::unique_lock<std::mutex> lock(mu_);
  tick_++;
  counters_.routed += static_cast<double>(need.size());
  // Use counts decay so that the cache follows a shift in routing (half-life ~64 micro-batches).
  for (float& f : L.freq) f *= 0.989f;
  for (int e : need) {
    L.freq[e] += 1.0f;
    L.uses[e] += 1.0;
  }
  if (!L.predicted.empty()) {
    counters_.predicted += static_cast<double>(need.size());
    double right = 0;
    for (int e : L.predicted)
      if (keep[e]) right += 1;
    counters_.predicted_right += right;
    precision_ += kPrecisionAlpha * (right / static_cast<double>(L.predicted.size()) - precision_);
    L.predicted.clear();
  }
  DropAheadLocked(L, li, keep);
  if (static_cast<int>(need.size()) > static_cast<int>(L.slots.size())) {
    lock.unlock();
    Stage(L, li, need);
    return;
  }
  std::vector<char> fresh(experts_, 0);
  for (int e : need) {
    int s = L.slot_of[e];
    if (s >= 0) {
      if (L.slots[s].prefetched) counters_.prefetch_hits += 1;
      else counters_.hits += 1;
      L.slots[s].prefetched = false;
    } else {
      int v;
      while ((v = VictimLocked(L, keep)) < 0 && !stop_) {
        waiting_++;
        ready_cv_.wait(lock);
        waiting_--;
      }
      if (v < 0) return;
      Slot& sl = L.slots[v];
      WastedLocked(L, sl);
      if (sl.expert >= 0) L.slot_of[sl.expert] = -1;
      sl.expert = e;
      sl.pending = static_cast<int>(L.projs.size());
      sl.prefetched = false;
      L.slot_of[e] = v;
      counters_.loads += 1;
      fresh[e] = 1;
      s = v;
    }
    L.slots[s].last_use = tick_;
    L.index_of[e] = s;
  }
  // Read in the order compute needs them: every expert's first projection, then the next. An
  // expert still being read ahead (a prediction) is read once: a slot being read is never
  // reassigned, so its queued reads stay its own.
  const size_t queued = demand_.size();
  for (size_t p = 0; p < L.projs.size(); p++)
    for (int e : need)
      if (fresh[e]) demand_.push_back({li, L.slot_of[e], e, static_cast<int>(p)});
  const size_t jobs = demand_.size() - queued;
  L.need = std::move(need);
  L.prepared = true;
  L.rewrite = true;
  lock.unlock();
  WakeIo(jobs);
}

// As many I/O threads as there are new reads: each wake is a context switch on a core the
// compute is using (and a costly one under virtualization), so idle threads stay asleep.
void ExpertCache::WakeIo(size_t jobs) {
  if (jobs >= io_.size()) {
    io_cv_.notify_all();
    return;
  }
  for (size_t i = 0; i < jobs; i++) io_cv_.notify_one();
}

// The layer's projections point at the staging buffer, where expert e sits at index e (so the
// selection needs no rewrite); `need` empty means every expert. Experts in a slot are copied.
void ExpertCache::Stage(Layer& L, int li, std::vector<int> need) {
  if (!L.projs[0].staging) {
    std::lock_guard<std::mutex> l(mu_);
    if (counters_.error.empty()) counters_.error = "a micro-batch routed to more experts than the expert cache holds, and no staging buffer was planned";
    L.prepared = true;
    return;
  }
  const bool routed = !need.empty();
  if (!routed)
    for (int e = 0; e < experts_; e++) need.push_back(e);
  PointAt(L, true);
  std::unique_lock<std::mutex> lock(mu_);
  PromoteStagedLocked();
  if (routed) staged_layer_ = li;
  counters_.staged += 1;
  L.stage_pending = 0;
  const size_t queued = demand_.size();
  for (size_t p = 0; p < L.projs.size(); p++)
    for (int e : need) {
      int s = L.slot_of[e];
      Proj& pr = L.projs[p];
      if (s >= 0 && L.slots[s].pending == 0) {
        std::memcpy(pr.staging + static_cast<size_t>(e) * pr.slice, pr.cache + static_cast<size_t>(s) * pr.slice, pr.slice);
        if (p == 0) counters_.hits += 1;
      } else {
        demand_.push_back({li, -1, e, static_cast<int>(p)});
        L.stage_pending++;
      }
    }
  const size_t jobs = demand_.size() - queued;
  L.need = std::move(need);
  L.prepared = true;
  L.rewrite = false;
  lock.unlock();
  WakeIo(jobs);
}

// The experts the last routed micro-batch that was staged read into the staging buffer, while
// the buffer still holds them (the next staging overwrites it): the most used of them are
// copied into that layer's slots, in place of colder experts, so that decode after a prompt
// starts with the prompt's experts rather than an empty cache (a copy in memory, no read).
void ExpertCache::PromoteStagedLocked() {
  if (staged_layer_ < 0) return;
  Layer& L = layers_[staged_layer_];
  staged_layer_ = -1;
  if (L.stage_pending > 0 || L.slots.empty()) return;
  std::vector<int> order = L.need;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return L.freq[a] > L.freq[b]; });
  std::vector<char> keep(experts_, 0);
  for (int e : order) keep[e] = 1;
  for (int e : order) {
    if (L.slot_of[e] >= 0) continue;
    const int v = VictimLocked(L, keep);
    if (v < 0) break;
    Slot& sl = L.slots[v];
    if (sl.expert >= 0 && L.freq[sl.expert] >= L.freq[e]) break;
    WastedLocked(L, sl);
    if (sl.expert >= 0) L.slot_of[sl.expert] = -1;
    for (const auto& p : L.projs) std::memcpy(p.cache + static_cast<size_t>(v) * p.slice, p.staging + static_cast<size_t>(e) * p.slice, p.slice);
    sl.expert = e;
    sl.pending = 0;
    sl.prefetched = false;
    sl.last_use = tick_;
    L.slot_of[e] = v;
    counters_.promoted += 1;
  }
}

void ExpertCache::Rewrite(Layer& L, ggml_tensor* ids) {
  if (!ids || ids->type != GGML_TYPE_I32) return;
  L.ids = ids;
  L.ids_experts.clear();
  for (int64_t j = 0; j < ids->ne[1]; j++)
    for (int64_t i = 0; i < ids->ne[0]; i++) {
      auto* v = reinterpret_cast<int32_t*>(static_cast<char*>(ids->data) + i * ids->nb[0] + j * ids->nb[1]);
      L.ids_experts.push_back(*v);
      if (*v >= 0 && *v < experts_ && L.index_of[*v] >= 0) *v = L.index_of[*v];
    }
}

// The expert ops' copy of the router's selection, in slot indices: the same shape and strides
// as the selection, in bytes of its own.
void ExpertCache::FillSlotIds(Layer& L) {
  const ggml_tensor* src = L.topk;
  if (!L.slot_ids) L.slot_ids = std::make_shared<ggml_tensor>();
  ggml_tensor* c = L.slot_ids.get();
  *c = *src;
  L.slot_ids_bytes.resize(ggml_nbytes(src) / sizeof(int32_t) + 1);
  c->data = L.slot_ids_bytes.data();
  c->view_src = nullptr;
  c->view_offs = 0;
  std::snprintf(c->name, sizeof(c->name), "ffn_moe_slots-%d", L.index);
  for (int64_t j = 0; j < src->ne[1]; j++)
    for (int64_t i = 0; i < src->ne[0]; i++) {
      const size_t at = static_cast<size_t>(i * src->nb[0] + j * src->nb[1]);
      int32_t v = *reinterpret_cast<const int32_t*>(static_cast<const char*>(src->data) + at);
      if (v >= 0 && v < experts_ && L.index_of[v] >= 0) v = L.index_of[v];
      *reinterpret_cast<int32_t*>(static_cast<char*>(c->data) + at) = v;
    }
}

// The layer's expert ops are done: the selection holds the experts' ids again, so that a node
// after them that indexes by expert (a per-expert scale's get_rows) reads the right rows.
void ExpertCache::Restore(Layer& L) {
  if (!L.ids) return;
  size_t k = 0;
  for (int64_t j = 0; j < L.ids->ne[1]; j++)
    for (int64_t i = 0; i < L.ids->ne[0] && k < L.ids_experts.size(); i++)
      *reinterpret_cast<int32_t*>(static_cast<char*>(L.ids->data) + i * L.ids->nb[0] + j * L.ids->nb[1]) = L.ids_experts[k++];
  L.ids = nullptr;
}

void ExpertCache::WaitReady(Layer& L, int proj) {
  double t0 = NowMs();
  bool waited = false;
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] {
    if (stop_ || !counters_.error.empty()) return true;
    if (L.staged) return L.stage_pending == 0;
    for (int e : L.need) {
      int s = L.slot_of[e];
      if (s < 0 || L.slots[s].pending > 0) return false;
    }
    return true;
  };
  (void)proj;
  if (!ready()) {
    waited = true;
    waiting_++;
    ready_cv_.wait(lock, ready);
    waiting_--;
  }
  if (waited) {
    double dur = NowMs() - t0;
    counters_.stall_ms += dur;
    counters_.stalls++;
    lock.unlock();
    sink_(3, L.index, 0, dur);
  }
}

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
  const int64_t n = w->ne[0];
  const float* xv = static_cast<const float*>(x->data);
  std::vector<float> row(static_cast<size_t>(n));
  std::vector<std::pair<float, int>> logits;
  const auto* traits = ggml_get_type_traits(w->type);
  for (int e = 0; e < experts_; e++) {
    const char* r = static_cast<const char*>(w->data) + static_cast<size_t>(e) * w->nb[1];
    const float* rv;
    if (w->type == GGML_TYPE_F32) {
      rv = reinterpret_cast<const float*>(r);
    } else if (traits && traits->to_float) {
      traits->to_float(r, row.data(), n);
      rv = row.data();
    } else {
      return;
    }
    double dot = 0;
    for (int64_t i = 0; i < n; i++) dot += static_cast<double>(rv[i]) * xv[i];
    logits.push_back({static_cast<float>(dot), e});
  }
  std::partial_sort(logits.begin(), logits.begin() + std::min<size_t>(k, logits.size()), logits.end(),
                    [](const std::pair<float, int>& a, const std::pair<float, int>& b) { return a.first > b.first; });
  std::vector<char> keep(experts_, 0);
  std::vector<int> predicted;
  for (int i = 0; i < k && i < static_cast<int>(logits.size()); i++) {
    keep[logits[i].second] = 1;
    predicted.push_back(logits[i].second);
  }
  std::unique_lock<std::mutex> lock(mu_);
  counters_.predictions += 1;
  // Measured either way; read on only while it pays.
  const bool issue = precision_ >= kMinPrecision;
  if (issue) counters_.predictions_issued += 1;
  const size_t queued = ahead_.size();
  for (int e : predicted) {
    if (!issue) break;
    if (next.slot_of[e] >= 0) continue;
    int v = VictimLocked(next, keep);
    if (v < 0) break;
    Slot& sl = next.slots[v];
    WastedLocked(next, sl);
    if (sl.expert >= 0) next.slot_of[sl.expert] = -1;
    sl.expert = e;
    sl.pending = static_cast<int>(next.projs.size());
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
