// The expert cache (experts.h): setup, the eval callback's halves, routing a micro-batch to
// slots, the prediction of the next layer's experts, and the I/O threads.
#include "experts.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "clock.h"
#include "ggml.h"

namespace rf {

namespace {

constexpr size_t kBlock = 4096;
// Each I/O thread's buffer for the partial first and last blocks of a slice (and whole slices
// that do not lie at their file offset within a page). Charged when the thread starts: the
// runtime budgets EXPERT_IO_BUFFER_BYTES per thread for it.
constexpr size_t kBounce = 512 << 10;
constexpr const char* kTopk = "ffn_moe_topk";

size_t AlignDown(size_t v) { return v / kBlock * kBlock; }
size_t AlignUp(size_t v) { return (v + kBlock - 1) / kBlock * kBlock; }

// Order the graph uses an MoE layer's projections in: up (or fused gate_up), gate, down, then
// the rest (biases, scales), so the first expert op's bytes are read first.
int ProjRank(const std::string& name) {
  if (name.find("ffn_up_exps") != std::string::npos || name.find("ffn_gate_up_exps") != std::string::npos) return 0;
  if (name.find("ffn_gate_exps") != std::string::npos) return 1;
  if (name.find("ffn_down_exps") != std::string::npos) return 2;
  return 3;
}

// Anonymous memory whose address is congruent to `residue` modulo the page size (so that a
// slice lies in memory at the same offset within a page as in the file: direct reads then go
// straight into it), charged now rather than on first use.
char* MapCongruent(size_t bytes, size_t residue, std::vector<char*>* maps, std::vector<size_t>* lens) {
  size_t len = AlignUp(bytes + residue);
  void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  if (madvise(m, len, MADV_POPULATE_WRITE) != 0) std::memset(m, 0, len);
  maps->push_back(static_cast<char*>(m));
  lens->push_back(len);
  return static_cast<char*>(m) + residue;
}

// Layer index of a name "blk.N.…", or -1.
int BlockOf(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  return std::atoi(name.c_str() + 4);
}

}  // namespace

ExpertCache::ExpertCache(StreamEventSink sink) : sink_(std::move(sink)) {}

ExpertCache::~ExpertCache() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  io_cv_.notify_all();
  ready_cv_.notify_all();
  for (auto& t : io_)
    if (t.joinable()) t.join();
  // Tensors must never be left pointing into memory that is about to go.
  for (auto& L : layers_)
    for (auto& p : L.projs) p.t->data = p.original;
  for (size_t i = 0; i < maps_.size(); i++) munmap(maps_[i], map_lens_[i]);
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

std::string ExpertCache::Configure(ExpertConfig cfg, const std::vector<std::string>& files,
                                   const std::unordered_map<std::string, ggml_tensor*>& tensors) {
  cfg_ = std::move(cfg);
  if (cfg_.slots_per_layer < 1) return "the expert cache needs at least one slot per layer";
  direct_ = true;
  for (const auto& f : files) {
    int fd = open(f.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
    if (fd < 0) {
      direct_ = false;
      fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0) return "cannot open " + f + ": " + std::strerror(errno);
    fds_.push_back(fd);
  }
  // One file refused direct I/O: all read buffered (and drop what they read from the cache).
  if (!direct_)
    for (int fd : fds_) {
      int fl = fcntl(fd, F_GETFL);
      if (fl >= 0 && (fl & O_DIRECT)) fcntl(fd, F_SETFL, fl & ~O_DIRECT);
    }
  std::vector<ExpertTensorSpec> specs = cfg_.tensors;
  std::stable_sort(specs.begin(), specs.end(), [](const ExpertTensorSpec& a, const ExpertTensorSpec& b) {
    return a.layer != b.layer ? a.layer < b.layer : ProjRank(a.name) < ProjRank(b.name);
  });
  for (const auto& s : specs) {
    auto it = tensors.find(s.name);
    if (it == tensors.end()) return "expert tensor '" + s.name + "' is not in the model";
    if (s.file < 0 || s.file >= static_cast<int>(fds_.size())) return "expert tensor '" + s.name + "' names a file that is not listed";
    ggml_tensor* t = it->second;
    int dim = ggml_n_dims(t) - 1;
    if (dim < 1) return "expert tensor '" + s.name + "' has no expert dimension";
    int n = static_cast<int>(t->ne[dim]);
    size_t slice = t->nb[dim];
    if (n < 2 || slice * static_cast<size_t>(n) != ggml_nbytes(t)) return "expert tensor '" + s.name + "' is not expert-major";
    if (BlockOf(s.name) != s.layer) return "expert tensor '" + s.name + "' is listed in layer " + std::to_string(s.layer);
    if (experts_ == 0) experts_ = n;
    if (n != experts_) return "expert tensor '" + s.name + "' has " + std::to_string(n) + " experts, others " + std::to_string(experts_);
    auto li = by_index_.find(s.layer);
    if (li == by_index_.end()) {
      li = by_index_.emplace(s.layer, static_cast<int>(layers_.size())).first;
      Layer L;
      L.index = s.layer;
      auto r = tensors.find("blk." + std::to_string(s.layer) + ".ffn_gate_inp.weight");
      if (r != tensors.end() && r->second->ne[1] == n) L.router = r->second;
      layers_.push_back(std::move(L));
    }
    Proj p;
    p.t = t;
    p.original = t->data;
    p.file = s.file;
    p.file_offset = s.file_offset;
    p.slice = slice;
    layers_[li->second].projs.push_back(p);
  }
  if (layers_.empty()) return "the expert cache was given no expert tensors";
  const int slots = std::min(cfg_.slots_per_layer, experts_);
  for (size_t li = 0; li < layers_.size(); li++) {
    Layer& L = layers_[li];
    L.slots.assign(slots, Slot());
    L.slot_of.assign(experts_, -1);
    L.index_of.assign(experts_, -1);
    L.freq.assign(experts_, 0.0f);
    L.uses.assign(experts_, 0.0);
    for (size_t pi = 0; pi < L.projs.size(); pi++) {
      Proj& p = L.projs[pi];
      size_t residue = static_cast<size_t>(p.file_offset) % kBlock;
      p.cache = MapCongruent(p.slice * slots, residue, &maps_, &map_lens_);
      if (!p.cache) return std::string("cannot map the expert cache: ") + std::strerror(errno);
      counters_.slot_bytes += static_cast<double>(p.slice) * slots;
      proj_of_[p.t] = {static_cast<int>(li), static_cast<int>(pi)};
    }
    if (L.router) router_of_[L.router] = static_cast<int>(li);
  }
  // One staging buffer holds every expert of one layer: it serves whichever layer a micro-batch
  // routes to more experts than the cache holds (each projection's share is the largest one's).
  if (slots < experts_ && cfg_.staging) {
    std::vector<size_t> largest;
    for (const auto& L : layers_)
      for (size_t pi = 0; pi < L.projs.size(); pi++) {
        if (largest.size() <= pi) largest.resize(pi + 1, 0);
        largest[pi] = std::max(largest[pi], L.projs[pi].slice);
      }
    std::vector<char*> shared(largest.size(), nullptr);
    for (size_t pi = 0; pi < largest.size(); pi++) {
      // Congruent to the first layer's projection: every layer's tensor of one kind shares it
      // when their offsets agree modulo a page, else reads go through the bounce buffer.
      size_t residue = static_cast<size_t>(layers_[0].projs.size() > pi ? layers_[0].projs[pi].file_offset : 0) % kBlock;
      shared[pi] = MapCongruent(largest[pi] * experts_, residue, &maps_, &map_lens_);
      if (!shared[pi]) return std::string("cannot map the expert staging buffer: ") + std::strerror(errno);
      counters_.slot_bytes += static_cast<double>(largest[pi]) * experts_;
    }
    for (auto& L : layers_)
      for (size_t pi = 0; pi < L.projs.size(); pi++) L.projs[pi].staging = shared[pi];
  }
  for (auto& L : layers_)
    for (auto& p : L.projs) p.t->data = p.cache;
  counters_.slots_per_layer = slots;
  counters_.layers = static_cast<int>(layers_.size());
  counters_.experts = experts_;
  counters_.direct_io = direct_;
  for (int i = 0; i < std::max(1, cfg_.io_threads); i++) io_.emplace_back([this] { IoLoop(); });
  return "";
}

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

bool ExpertCache::Ask(ggml_tensor* t) {
  if (std::strncmp(t->name, kTopk, std::strlen(kTopk)) == 0) return true;
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
    if (L.rewrite) {
      Rewrite(L, t->src[2]);
      L.rewrite = false;
    }
    WaitReady(L, p);
    return true;
  }
  // Between a layer's selection and its first expert op every node runs on its own, so the
  // selection is rewritten only after everything that reads it as expert ids has run.
  for (const auto& L : layers_)
    if (L.rewrite) return true;
  return false;
}

bool ExpertCache::Computed(ggml_tensor* t) {
  if (std::strncmp(t->name, kTopk, std::strlen(kTopk)) == 0) {
    const char* dash = std::strrchr(t->name, '-');
    auto it = dash ? by_index_.find(std::atoi(dash + 1)) : by_index_.end();
    if (it != by_index_.end() && t->type == GGML_TYPE_I32) {
      Route(layers_[it->second], it->second, t);
      if (cfg_.predict && it->second + 1 < static_cast<int>(layers_.size()) && t->ne[1] == 1) Predict(it->second);
    }
    return error().empty();
  }
  const ggml_tensor* w = ExpertOperand(t);
  int p = -1;
  int li = w ? LayerOfProj(w, &p) : -1;
  if (li >= 0) {
    Layer& L = layers_[li];
    if (++L.ops_done >= static_cast<int>(L.projs.size())) {
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
  if (L.staged) PointAt(L, false);
  L.ops_done = 0;
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
    for (int e : L.predicted)
      if (keep[e]) counters_.predicted_right += 1;
    L.predicted.clear();
  }
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
      while ((v = VictimLocked(L, keep)) < 0 && !stop_) ready_cv_.wait(lock);
      if (v < 0) return;
      Slot& sl = L.slots[v];
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
  for (size_t p = 0; p < L.projs.size(); p++)
    for (int e : need)
      if (fresh[e]) demand_.push_back({li, L.slot_of[e], e, static_cast<int>(p)});
  L.need = std::move(need);
  L.prepared = true;
  L.rewrite = true;
  lock.unlock();
  io_cv_.notify_all();
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
  if (need.empty())
    for (int e = 0; e < experts_; e++) need.push_back(e);
  PointAt(L, true);
  std::unique_lock<std::mutex> lock(mu_);
  counters_.staged += 1;
  L.stage_pending = 0;
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
  L.need = std::move(need);
  L.prepared = true;
  L.rewrite = false;
  lock.unlock();
  io_cv_.notify_all();
}

void ExpertCache::Rewrite(Layer& L, ggml_tensor* ids) {
  if (!ids || ids->type != GGML_TYPE_I32) return;
  for (int64_t j = 0; j < ids->ne[1]; j++)
    for (int64_t i = 0; i < ids->ne[0]; i++) {
      auto* v = reinterpret_cast<int32_t*>(static_cast<char*>(ids->data) + i * ids->nb[0] + j * ids->nb[1]);
      if (*v >= 0 && *v < experts_ && L.index_of[*v] >= 0) *v = L.index_of[*v];
    }
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
    ready_cv_.wait(lock, ready);
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
  for (int e : predicted) {
    if (next.slot_of[e] >= 0) continue;
    int v = VictimLocked(next, keep);
    if (v < 0) break;
    Slot& sl = next.slots[v];
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
  next.predicted = std::move(predicted);
  lock.unlock();
  io_cv_.notify_all();
}

void ExpertCache::IoLoop() {
  std::vector<char> holder(kBounce + kBlock, 0);  // this thread's bounce buffer, charged now
  for (;;) {
    Job j;
    {
      std::unique_lock<std::mutex> lock(mu_);
      io_cv_.wait(lock, [&] { return stop_ || !demand_.empty() || !ahead_.empty(); });
      if (stop_) break;
      std::deque<Job>& q = !demand_.empty() ? demand_ : ahead_;
      j = q.front();
      q.pop_front();
    }
    Layer& L = layers_[j.layer];
    const Proj& p = L.projs[j.proj];
    char* dst = j.slot >= 0 ? p.cache + static_cast<size_t>(j.slot) * p.slice : p.staging + static_cast<size_t>(j.expert) * p.slice;
    bool ok = ReadSlice(p, j.expert, dst, holder);
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.read_bytes += static_cast<double>(p.slice);
      if (!ok) {
        counters_.read_errors++;
        if (counters_.error.empty()) counters_.error = std::string("reading an expert of layer ") + std::to_string(L.index) + " failed: " + std::strerror(errno);
      }
      if (j.slot >= 0) L.slots[j.slot].pending--;
      else L.stage_pending--;
    }
    ready_cv_.notify_all();
  }
}

// One expert's slice of a projection into `dst`. With direct I/O and `dst` at the file's offset
// within a page, the whole blocks go straight into it and only the partial first and last
// blocks through a small buffer; otherwise everything goes through the buffer.
bool ExpertCache::ReadSlice(const Proj& p, int expert, char* dst, std::vector<char>& holder) {
  const int fd = fds_[p.file];
  const size_t off = static_cast<size_t>(p.file_offset) + static_cast<size_t>(expert) * p.slice;
  const size_t len = p.slice;
  auto full = [&](char* buf, size_t n, size_t at) {
    size_t done = 0;
    while (done < n) {
      ssize_t r = pread(fd, buf + done, n - done, static_cast<off_t>(at + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return done;
      done += static_cast<size_t>(r);
    }
    return done;
  };
  if (!direct_) {
    bool ok = full(dst, len, off) == len;
    posix_fadvise(fd, static_cast<off_t>(off), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
    return ok;
  }
  if (holder.size() < kBounce + kBlock) holder.resize(kBounce + kBlock);
  char* bounce = reinterpret_cast<char*>(AlignUp(reinterpret_cast<uintptr_t>(holder.data())));
  // Bytes [from, to) of the slice through the buffer (block-aligned reads, copied out).
  auto via_buffer = [&](size_t from, size_t to) {
    size_t at = AlignDown(off + from);
    while (off + from < off + to) {
      size_t want = std::min(kBounce, AlignUp(off + to) - at);
      size_t got = full(bounce, want, at);
      size_t lo = off + from - at;
      size_t take = std::min(to - from, want - lo);
      if (got < lo + take) return false;
      std::memcpy(dst + from, bounce + lo, take);
      from += take;
      at += want;
    }
    return true;
  };
  const size_t a = AlignUp(off), b = AlignDown(off + len);
  if (reinterpret_cast<uintptr_t>(dst) % kBlock != off % kBlock || b <= a) return via_buffer(0, len);
  if (a > off && !via_buffer(0, a - off)) return false;
  if (full(dst + (a - off), b - a, a) != b - a) return false;
  if (off + len > b && !via_buffer(b - off, len)) return false;
  return true;
}

ExpertCounters ExpertCache::counters() {
  std::lock_guard<std::mutex> l(mu_);
  return counters_;
}

std::string ExpertCache::error() {
  std::lock_guard<std::mutex> l(mu_);
  return counters_.error;
}

std::vector<ExpertCache::LayerState> ExpertCache::Residents() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<LayerState> out;
  for (const auto& L : layers_) {
    LayerState st{L.index, {}, L.uses};
    for (const auto& s : L.slots) st.slots.push_back(s.pending > 0 ? -1 : s.expert);
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace rf
