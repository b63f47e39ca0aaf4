// The expert cache's compute side (experts.h): what the scheduler's eval callback asks before
// and after each node, routing a micro-batch to slots (or to the staging buffer), a staged
// micro-batch's experts kept, and waiting for experts. The expert ops' selection operand is in
// experts_selection.cpp, read-ahead in experts_ahead.cpp.
#include "experts.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "clock.h"
#include "ggml.h"
#include "host_tensor.h"

namespace rf {

namespace {

// The router's selection node of a layer: "ffn_moe_topk-N".
constexpr const char* kTopk = "ffn_moe_topk";
// Weight of the newest prediction in the precision measure (about the last 16 predictions).
constexpr double kPrecisionAlpha = 1.0 / 16;

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
    if (!L.prepared) StageAll(L, li);
    // ggml-cpu's MUL_MAT_ID asks slot by slot (experts_kernel_wait.cpp): the experts held are
    // computed while the misses are still being read. Anything else waits for all first: an
    // ADD_ID (a per-expert bias) does not ask. The flag is the micro-batch's, not the op's: the
    // scheduler asks about every op of a layer before it computes them.
    L.kernel_wait = kernel_wait_ && !device_ && !L.staged;
    if (!L.kernel_wait || t->op != GGML_OP_MUL_MAT_ID || !IsHostTensor(t->src[0])) WaitReady(L, p);
    if (device_) Upload(L);
    const bool stop = PointSelection(L, t);
    return stop || !error().empty();
  }
  // A selection rewritten in place: between it and the layer's first expert op every node runs
  // on its own, so that it is rewritten only after everything that reads it as expert ids ran.
  for (const auto& L : layers_)
    if (L.rewrite && L.direct != 1) return true;
  return false;
}

bool ExpertCache::Computed(ggml_tensor* t) {
  if (std::strncmp(t->name, kTopk, std::strlen(kTopk)) == 0) {
    int li = TopkLayer(t);
    if (li >= 0 && t->type == GGML_TYPE_I32) {
      // On a GPU the selection is in device memory: the host routes from a copy.
      Route(layers_[li], li, HostView(t, &layers_[li].topk_copy), t);
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
      if (L.dev_staged) PointDevice(L, false);
      L.prepared = false;
      L.ops_done = 0;
    }
    return error().empty();
  }
  return true;
}

// With a device tier the tensors are the device's (PointDevice): RAM's staging only says where
// the uploads come from.
void ExpertCache::PointAt(Layer& L, bool staging) {
  if (!device_)
    for (auto& p : L.projs) p.t->data = staging ? p.staging : p.cache;
  L.staged = staging;
}

// Every expert of the layer, at its own index: in the RAM staging buffer, and with a device
// tier in the device's staging buffer too.
void ExpertCache::StageAll(Layer& L, int li) {
  Stage(L, li, {});
  if (!device_ || !error().empty()) return;
  std::vector<int> all(static_cast<size_t>(experts_));
  for (int e = 0; e < experts_; e++) all[static_cast<size_t>(e)] = e;
  std::vector<char> keep(static_cast<size_t>(experts_), 1);
  std::lock_guard<std::mutex> l(mu_);
  DeviceAssignLocked(L, all, keep);
  PointDevice(L, static_cast<int>(all.size()) > static_cast<int>(L.dslots.size()));
}

// A slot for a new expert: an empty one, else the least recently used that is neither being
// read nor in `keep`; -1 when every other slot is still being read.
int ExpertCache::VictimLocked(Layer& L, const std::vector<char>& keep) {
  return Coldest(L, L.slots, keep);
}

// Of `slots` (the layer's RAM slots, or its device slots), an empty one, else the coldest that is
// neither being read nor in `keep`; -1 when there is none.
int ExpertCache::Coldest(const Layer& L, const std::vector<Slot>& slots, const std::vector<char>& keep) const {
  int best = -1;
  auto colder = [&](const Slot& a, const Slot& b) {
    if (cfg_.lfu && L.freq[a.expert] != L.freq[b.expert]) return L.freq[a.expert] < L.freq[b.expert];
    return a.last_use < b.last_use;
  };
  for (int s = 0; s < static_cast<int>(slots.size()); s++) {
    const Slot& sl = slots[s];
    if (sl.pending > 0 || (sl.expert >= 0 && keep[sl.expert])) continue;
    if (sl.expert < 0) return s;
    if (best < 0 || colder(sl, slots[best])) best = s;
  }
  return best;
}

void ExpertCache::Route(Layer& L, int li, const ggml_tensor* ids, ggml_tensor* node) {
  {
    std::lock_guard<std::mutex> l(mu_);
    PromoteStagedLocked();
  }
  if (L.staged) PointAt(L, false);
  L.ops_done = 0;
  L.topk = ids;
  L.topk_node = node;
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
  CountRoutedLocked(L, need, keep);
  DropAheadLocked(L, li, keep);
  // The device tier first: what it holds is not fetched (a staged batch fetches every expert).
  const bool dev_staged = device_ && need.size() > L.dslots.size();
  if (device_) {
    need = DeviceAssignLocked(L, need, keep);
    // The RAM slots keep only what they must serve now: an expert this batch finds in VRAM may
    // be given up in RAM (else a RAM cache of such experts has no victim, and waits for ever).
    std::fill(keep.begin(), keep.end(), 0);
    for (int e : need) keep[e] = 1;
  }
  if (static_cast<int>(need.size()) > static_cast<int>(L.slots.size())) {
    lock.unlock();
    Stage(L, li, need);
    if (device_) Routed(L, dev_staged);
    return;
  }
  const std::vector<float> weight = cfg_.skip_below > 0.0f && L.zero_slot >= 0 ? TokenWeights(ids) : std::vector<float>();
  std::vector<char> fresh(experts_, 0);
  std::vector<int> read;
  for (int e : need) {
    int s = L.slot_of[e];
    if (s < 0 && !weight.empty() && weight[e] < cfg_.skip_below) {
      L.index_of[e] = L.zero_slot;
      counters_.skipped += 1;
      counters_.skipped_weight += weight[e];
      continue;
    }
    read.push_back(e);
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
      sl.done = 0;
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
    for (int e : read)
      if (fresh[e]) demand_.push_back({li, L.slot_of[e], e, static_cast<int>(p)});
  const size_t jobs = demand_.size() - queued;
  // What the expert ops wait for: the skipped experts are computed from the zero slot.
  L.need = std::move(read);
  L.prepared = true;
  L.rewrite = true;
  lock.unlock();
  if (device_) Routed(L, dev_staged);
  WakeIo(jobs);
}

// The device tier's side of a routed micro-batch: its tensors point at the slots or the staging
// buffer, and the selection is rewritten to slot indices only for the slots.
void ExpertCache::Routed(Layer& L, bool dev_staged) {
  PointDevice(L, dev_staged);
  L.rewrite = !dev_staged;
  L.prepared = true;
}

// A micro-batch's routing counted: use counts (decaying, so that the cache follows a shift in
// routing: half-life ~64 micro-batches) and the last prediction's precision.
void ExpertCache::CountRoutedLocked(Layer& L, const std::vector<int>& need, const std::vector<char>& keep) {
  tick_++;
  counters_.routed += static_cast<double>(need.size());
  for (float& f : L.freq) f *= 0.989f;
  for (int e : need) {
    L.freq[e] += 1.0f;
    L.uses[e] += 1.0;
  }
  if (L.predicted.empty()) return;
  counters_.predicted += static_cast<double>(need.size());
  double right = 0;
  for (int e : L.predicted)
    if (keep[e]) right += 1;
  counters_.predicted_right += right;
  precision_ += kPrecisionAlpha * (right / static_cast<double>(L.predicted.size()) - precision_);
  L.predicted.clear();
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

// Waits for the projection `proj` of every expert the micro-batch needs (all of them for the
// device tier, which uploads whole experts, and for the staging buffer): an expert's later
// projections are still being read while its first ones compute.
void ExpertCache::WaitReady(Layer& L, int proj) {
  double t0 = NowMs();
  bool waited = false;
  std::unique_lock<std::mutex> lock(mu_);
  const uint32_t bit = !device_ && proj >= 0 && proj < 32 ? 1u << proj : 0;
  auto ready = [&] {
    if (stop_ || !counters_.error.empty()) return true;
    if (L.staged) return L.stage_pending == 0;
    for (int e : L.need) {
      int s = L.slot_of[e];
      if (s < 0) return false;
      const Slot& sl = L.slots[s];
      if (sl.pending > 0 && (bit == 0 || (sl.done & bit) == 0)) return false;
    }
    return true;
  };
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

}  // namespace rf
