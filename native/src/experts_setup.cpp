// The expert cache (experts.h), set up and torn down: the expert tensors grouped by layer and
// validated, the slots and the staging buffer mapped (each congruent to its file data modulo a
// page, so reads go straight into them), the tensors pointed at their slots, the I/O threads
// started; and what it reports (counters, the slots' experts).
#include "experts.h"
#include "clock.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "experts_block.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace rf {

namespace {

// Order the graph uses an MoE layer's projections in: up (or fused gate_up), gate, down, then
// the rest (biases, scales), so the first expert op's bytes are read first.
int ProjRank(const std::string& name) {
  if (name.find("ffn_up_exps") != std::string::npos || name.find("ffn_gate_up_exps") != std::string::npos) return 0;
  if (name.find("ffn_gate_exps") != std::string::npos) return 1;
  if (name.find("ffn_down_exps") != std::string::npos) return 2;
  return 3;
}

// One write from user space to every page. Under a hypervisor that shadows the guest's page
// tables, the first user access to a page traps to the host (about 2 ms a MiB on the machines
// we measure on) even after the kernel populated it, and a direct read into the page does not
// count as that access: without this, each slot paid it on the first token that computed with
// it, so a cold cache cost twice its reads. Paid here, at load, as a resident run pays it
// when it repacks. The pages are fresh zeros, so writing a zero changes nothing.
void TouchPages(char* m, size_t len) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t off = 0; off < len; off += page) reinterpret_cast<volatile char*>(m)[off] = 0;
}

// Anonymous memory whose address is congruent to `residue` modulo the page size (so that a
// slice lies in memory at the same offset within a page as in the file: direct reads then go
// straight into it), charged now rather than on first use. It starts on a 2 MiB boundary and
// asks for transparent huge pages: a direct read into a huge page pins one page instead of 512,
// and on the machines we measure on, reads of 2 MiB scattered over a model file ran at 3.6–4.4
// GiB/s into huge pages against 1.1–1.5 GiB/s into small ones (the same file, the same minute).
// The mapping ends where the slots end, so no huge page reaches past them to be charged whole.
char* MapCongruent(size_t bytes, size_t residue, std::vector<char*>* maps, std::vector<size_t>* lens) {
  size_t len = ExpertAlignUp(bytes + residue);
  char* m = MapHugeAligned(len);
  if (!m) return nullptr;
  if (madvise(m, len, MADV_POPULATE_WRITE) != 0) std::memset(m, 0, len);
  TouchPages(m, len);
  maps->push_back(m);
  lens->push_back(len);
  return m + residue;
}

// Layer index of a name "blk.N.…", or -1.
int BlockOf(const std::string& name) {
  if (name.rfind("blk.", 0) != 0) return -1;
  return std::atoi(name.c_str() + 4);
}

}  // namespace

ExpertCache::ExpertCache(StreamEventSink sink) : sink_(std::move(sink)) {}

ExpertCache::~ExpertCache() {
  UnregisterKernelWait();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  io_cv_.notify_all();
  ready_cv_.notify_all();
  for (auto& t : io_)
    if (t.joinable()) t.join();
  // Tensors must never be left pointing into memory that is about to go.
  RestoreTensors();
  for (size_t i = 0; i < maps_.size(); i++) munmap(maps_[i], map_lens_[i]);
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

std::string ExpertCache::Configure(ExpertConfig cfg, const std::vector<std::string>& files,
                                   const std::unordered_map<std::string, ggml_tensor*>& tensors) {
  cfg_ = std::move(cfg);
  if (cfg_.slots_per_layer < 1) return "the expert cache needs at least one slot per layer";
  std::string err = OpenFiles(files);
  if (err.empty()) err = AddTensors(tensors);
  if (!err.empty()) return err;
  if (layers_.empty()) return "the expert cache was given no expert tensors";
  // A skipped expert is computed from a slot of zeros after the others, so its index must stay
  // below the tensor's expert count.
  const bool skip = cfg_.skip_below > 0.0f;
  const int slots = std::min(cfg_.slots_per_layer, skip ? experts_ - 1 : experts_);
  if (slots < 1) return "the expert cache needs at least one slot per layer";
  err = MapSlots(slots);
  // One staging buffer holds every expert of one layer: it serves whichever layer a micro-batch
  // routes to more experts than the cache holds (each projection's share is the largest one's).
  if (err.empty() && slots < experts_ && cfg_.staging) err = MapStaging();
  if (!err.empty()) return err;
  if (!cfg_.device.empty()) {
    err = MapDevice();
    if (!err.empty()) return err;
  } else {
    for (auto& L : layers_)
      for (auto& p : L.projs) p.t->data = p.cache;
    SetUpRepack();
    // Repacked slots are computed by other kernels, which do not ask.
    if (!repack_buffer_) RegisterKernelWait();
  }
  counters_.slots_per_layer = slots;
  counters_.layers = static_cast<int>(layers_.size());
  counters_.experts = experts_;
  counters_.direct_io = direct_;
  for (int i = 0; i < std::max(1, cfg_.io_threads); i++) io_.emplace_back([this] { IoLoop(); });
  if (!cfg_.warm.empty()) WarmSlots();
  return error();
}

std::string ExpertCache::OpenFiles(const std::vector<std::string>& files) {
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
  return "";
}

std::string ExpertCache::AddTensors(const std::unordered_map<std::string, ggml_tensor*>& tensors) {
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
    // One value per expert (gemma4's ffn_down_exps.scale): the graph picks it with get_rows by
    // expert id, not through MUL_MAT_ID, so it stays where the model mapped it (Restore gives
    // that get_rows the ids back).
    if (dim == 0 && t->ne[0] > 1) continue;
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
  return "";
}

std::string ExpertCache::MapSlots(int slots) {
  for (size_t li = 0; li < layers_.size(); li++) {
    Layer& L = layers_[li];
    L.slots.assign(slots, Slot());
    L.zero_slot = cfg_.skip_below > 0.0f ? slots : -1;
    L.slot_of.assign(experts_, -1);
    L.index_of.assign(experts_, -1);
    L.freq.assign(experts_, 0.0f);
    L.uses.assign(experts_, 0.0);
    for (size_t pi = 0; pi < L.projs.size(); pi++) {
      Proj& p = L.projs[pi];
      size_t residue = static_cast<size_t>(p.file_offset) % kExpertBlock;
      const int mapped = slots + (cfg_.skip_below > 0.0f ? 1 : 0);
      p.cache = MapCongruent(p.slice * mapped, residue, &maps_, &map_lens_);
      if (!p.cache) return std::string("cannot map the expert cache: ") + std::strerror(errno);
      counters_.slot_bytes += static_cast<double>(p.slice) * mapped;
      proj_of_[p.t] = {static_cast<int>(li), static_cast<int>(pi)};
    }
    if (L.router) router_of_[L.router] = static_cast<int>(li);
    // Read-ahead applies the next router on the host: a router on a GPU is copied once.
    if (L.router && !IsHostTensor(L.router)) {
      L.router_host.resize(ggml_nbytes(L.router));
      ggml_backend_tensor_get(L.router, L.router_host.data(), 0, L.router_host.size());
    }
  }
  return "";
}

std::string ExpertCache::MapStaging() {
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
    size_t residue = static_cast<size_t>(layers_[0].projs.size() > pi ? layers_[0].projs[pi].file_offset : 0) % kExpertBlock;
    shared[pi] = MapCongruent(largest[pi] * experts_, residue, &maps_, &map_lens_);
    if (!shared[pi]) return std::string("cannot map the expert staging buffer: ") + std::strerror(errno);
    counters_.slot_bytes += static_cast<double>(largest[pi]) * experts_;
  }
  for (auto& L : layers_)
    for (size_t pi = 0; pi < L.projs.size(); pi++) L.projs[pi].staging = shared[pi];
  return "";
}

ExpertCounters ExpertCache::counters() {
  std::lock_guard<std::mutex> l(mu_);
  ExpertCounters c = counters_;
  if (io_in_flight_ > 0) c.io_busy_ms += NowMs() - io_busy_since_;
  return c;
}

std::string ExpertCache::error() {
  std::lock_guard<std::mutex> l(mu_);
  return counters_.error;
}

// Reads each layer's warm experts into its empty slots on the I/O threads, all layers' reads
// queued together (the disk sees one deep queue), and waits for them.
void ExpertCache::WarmSlots() {
  std::unique_lock<std::mutex> lock(mu_);
  size_t jobs = 0;
  for (const auto& [layer, experts] : cfg_.warm) {
    auto it = by_index_.find(layer);
    if (it == by_index_.end()) continue;
    const int li = it->second;
    Layer& L = layers_[li];
    std::vector<int> took;
    size_t next = 0;
    for (int e : experts) {
      while (next < L.slots.size() && L.slots[next].expert >= 0) next++;
      if (next >= L.slots.size()) break;
      if (e < 0 || e >= experts_ || L.slot_of[e] >= 0) continue;
      Slot& sl = L.slots[next];
      sl.expert = e;
      sl.pending = static_cast<int>(L.projs.size());
      sl.done = 0;
      L.slot_of[e] = static_cast<int>(next);
      took.push_back(e);
    }
    counters_.warmed += static_cast<double>(took.size());
    for (size_t p = 0; p < L.projs.size(); p++)
      for (int e : took) demand_.push_back({li, L.slot_of[e], e, static_cast<int>(p)});
    jobs += took.size() * L.projs.size();
  }
  lock.unlock();
  WakeIo(jobs);
  lock.lock();
  auto done = [&] {
    if (stop_ || !counters_.error.empty()) return true;
    for (const auto& L : layers_)
      for (const auto& s : L.slots)
        if (s.pending > 0) return false;
    return true;
  };
  waiting_++;
  ready_cv_.wait(lock, done);
  waiting_--;
}

void ExpertCache::Empty() {
  std::unique_lock<std::mutex> lock(mu_);
  // Reads in flight land in their slots: wait for them, then forget every slot.
  auto idle = [&] {
    for (const auto& L : layers_)
      for (const auto& s : L.slots)
        if (s.pending > 0) return false;
    return demand_.empty() || stop_;
  };
  waiting_++;
  ready_cv_.wait(lock, idle);
  waiting_--;
  staged_layer_ = -1;
  for (auto& L : layers_) {
    for (auto& s : L.slots) s = Slot();
    std::fill(L.slot_of.begin(), L.slot_of.end(), -1);
    std::fill(L.freq.begin(), L.freq.end(), 0.0f);
    for (auto& s : L.dslots) s = Slot();
    std::fill(L.dslot_of.begin(), L.dslot_of.end(), -1);
  }
}

std::vector<ExpertCache::LayerState> ExpertCache::Residents() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<LayerState> out;
  for (const auto& L : layers_) {
    LayerState st{L.index, {}, L.uses, {}};
    for (const auto& s : L.slots) st.slots.push_back(s.pending > 0 ? -1 : s.expert);
    for (const auto& s : L.dslots) st.device_slots.push_back(s.expert);
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace rf
