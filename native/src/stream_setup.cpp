// Setting up a stream schedule: the model's files opened for direct reads, the units and their
// tensors, the window mapped once, and every weight that does not stream locked in memory.
#include "stream.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ggml-backend.h"
#include "ggml.h"
#include "pages.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace rf {

namespace {

int Populate(void* addr, size_t len, int advice) {
  for (int tries = 0; tries < 100; tries++) {
    if (madvise(addr, len, advice) == 0) return 0;
    if (errno != EINTR && errno != EAGAIN) return errno;
  }
  return EAGAIN;
}

constexpr size_t kHuge = 2u << 20;
// Pinned ranges are locked in steps of this size, the page cache swept between steps.
constexpr size_t kPinStep = 32u << 20;

// In this process's RAM: no buffer yet, or a buffer of a CPU device (plain or repacked).
bool OnThisMachine(const ggml_tensor* t) {
  if (!t->buffer) return true;
  ggml_backend_dev_t dev = ggml_backend_buft_get_device(ggml_backend_buffer_get_type(t->buffer));
  return dev == nullptr || ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU;
}

}  // namespace

std::string StreamSchedule::Configure(StreamConfig cfg, const std::vector<std::string>& files,
                                      const std::unordered_map<std::string, ggml_tensor*>& tensors) {
  std::vector<int64_t> sizes;
  // Direct I/O is the default where the file system allows it; cfg.direct_io false reads
  // through the page cache (dropped right after) instead.
  std::string err = OpenFiles(files, !cfg.units.empty() && cfg.direct_io, &sizes);
  if (!err.empty()) return err;
  block_ = std::max<size_t>(PageSize(), 4096);
  // A weight held on another device (a GPU, an RPC node) is no split point: splitting there
  // would compute that device's part one node at a time (over RPC, each with its whole graph
  // resent: 11 MB a token instead of 0.2 MB, measured).
  for (const auto& kv : tensors)
    if (OnThisMachine(kv.second)) weights_.insert(kv.second);
  size_t largest = 0;
  err = BuildUnits(cfg, sizes, tensors, &largest);
  if (!err.empty()) return err;
  const int n = static_cast<int>(units_.size());
  order_.resize(n);
  pos_.resize(n);
  for (int i = 0; i < n; i++) order_[i] = pos_[i] = i;
  state_.assign(n, kIdle);
  seen_.assign(n, 0);
  if (n > 0) {
    err = MapWindow(cfg.window_bytes, largest);
    if (!err.empty()) return err;
  }
  DropMappedCopies();
  // token_embd with a separate output head: one row per token; read-around would pull
  // megabytes into the cap for every row.
  random_ = cfg.random;
  for (const auto& r : random_) madvise(reinterpret_cast<void*>(r.addr), r.len, MADV_RANDOM);
  pinned_ = cfg.pinned;
  LockPinned();
  chunk_ = std::max(block_, (cfg.io_chunk_bytes + block_ - 1) & ~(block_ - 1));
  int threads = std::max(1, std::min(8, cfg.io_threads));
  if (n > 0)
    for (int i = 0; i < threads; i++) io_.emplace_back([this] { IoLoop(); });
  return "";
}

std::string StreamSchedule::OpenFiles(const std::vector<std::string>& files, bool direct, std::vector<int64_t>* sizes) {
  direct_ = direct;
  for (const auto& f : files) {
    int afd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    if (afd < 0) return "cannot open " + f + ": " + std::strerror(errno);
    advise_fds_.push_back(afd);
    struct stat st;
    if (fstat(afd, &st) != 0) return "cannot stat " + f + ": " + std::strerror(errno);
    sizes->push_back(st.st_size);
    int fd = direct_ ? open(f.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT) : -1;
    if (fd < 0) {
      // Some file systems (tmpfs, some FUSE) refuse direct I/O: read through the page cache and
      // drop what was read right after.
      direct_ = false;
      fd = dup(afd);
    }
    fds_.push_back(fd);
  }
  // A mix of direct and buffered descriptors would make the slot alignment rules differ per
  // file; if any file refused O_DIRECT, all read buffered.
  if (!direct_)
    for (size_t i = 0; i < fds_.size(); i++) {
      int fl = fcntl(fds_[i], F_GETFL);
      if (fl >= 0 && (fl & O_DIRECT)) fcntl(fds_[i], F_SETFL, fl & ~O_DIRECT);
    }
  return "";
}

std::string StreamSchedule::BuildUnits(const StreamConfig& cfg, const std::vector<int64_t>& sizes,
                                       const std::unordered_map<std::string, ggml_tensor*>& tensors, size_t* largest) {
  for (size_t u = 0; u < cfg.units.size(); u++) {
    const auto& spec = cfg.units[u];
    if (spec.file < 0 || spec.file >= static_cast<int>(sizes.size())) return "a stream unit names a file that is not listed";
    if (spec.tensors.empty()) return "a stream unit has no tensors";
    Unit unit;
    unit.layer = spec.layer;
    unit.file = spec.file;
    int64_t lo = INT64_MAX, hi = 0;
    size_t bytes = 0;
    for (const auto& ts : spec.tensors) {
      if (ts.file_offset < 0 || ts.file_offset + static_cast<int64_t>(ts.bytes) > sizes[spec.file])
        return "stream tensor '" + ts.name + "' lies outside its file";
      lo = std::min(lo, ts.file_offset);
      hi = std::max(hi, ts.file_offset + static_cast<int64_t>(ts.bytes));
      bytes += ts.bytes;
    }
    unit.read_offset = lo & ~static_cast<int64_t>(block_ - 1);
    int64_t end = (hi + static_cast<int64_t>(block_) - 1) & ~static_cast<int64_t>(block_ - 1);
    unit.read_len = static_cast<size_t>(end - unit.read_offset);
    unit.bytes = bytes;
    if (unit.read_len > (1ull << 32)) return "a stream unit is larger than 4 GiB";
    for (const auto& ts : spec.tensors) {
      auto it = tensors.find(ts.name);
      if (it == tensors.end()) return "stream unit names an unknown tensor '" + ts.name + "'";
      ggml_tensor* t = it->second;
      if (ggml_nbytes(t) != ts.bytes) return "stream tensor '" + ts.name + "' has another size than the model's";
      if (unit_of_.count(t)) return "tensor '" + ts.name + "' is in two stream units";
      unit_of_[t] = {static_cast<int>(u), static_cast<int>(unit.members.size())};
      unit.members.push_back({t, t->data, static_cast<size_t>(ts.file_offset - unit.read_offset)});
    }
    unit.used.assign(unit.members.size(), 0);
    *largest = std::max(*largest, unit.read_len);
    units_.push_back(std::move(unit));
  }
  return "";
}

// The window: slots mapped and charged once, for the whole run, in transparent huge pages.
// Direct reads into scattered 4 KiB pages are split by the device's segment limit into
// ~0.5-1 MiB requests; into 2 MiB pages a 4 MiB read is one request (measured here: 1.2-1.8
// GB/s against 4.4-4.9 GB/s). Huge pages also spare compute the TLB misses.
std::string StreamSchedule::MapWindow(size_t window_bytes, size_t largest) {
  const size_t page = PageSize();
  // Slots need not start on a huge page: a read into a run of huge pages is one request
  // whatever its offset in them; only the window as a whole is aligned.
  largest_ = (largest + page - 1) & ~(page - 1);
  // At least two of the largest unit: one in use while the next is read.
  size_t used = std::max<size_t>(2 * largest_, (window_bytes + page - 1) & ~(page - 1));
  ring_bytes_ = used;
  slots_len_ = used + kHuge;
  void* m = mmap(nullptr, slots_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return std::string("cannot map the streaming window: ") + std::strerror(errno);
  slots_map_ = static_cast<char*>(m);
  slots_ = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m) + kHuge - 1) & ~static_cast<uintptr_t>(kHuge - 1));
  madvise(slots_, used, MADV_HUGEPAGE);
  if (Populate(slots_, used, MADV_POPULATE_WRITE) != 0) std::memset(slots_, 0, used);
  std::lock_guard<std::mutex> l(cnt_mu_);
  counters_.slot_bytes = static_cast<double>(used);
  counters_.slots = static_cast<int>(used / largest_);
  return "";
}

// Streamed tensors are read into the window, never through the mapping: whatever of them the
// mapping holds (a prefaulted load, an earlier run's pages) is unmapped, so the sweep can free
// it. Only whole pages inside each tensor: edge pages may be a neighbour's.
void StreamSchedule::DropMappedCopies() {
  const size_t page = PageSize();
  for (const auto& u : units_)
    for (const auto& m : u.members) {
      uintptr_t a = (reinterpret_cast<uintptr_t>(m.original) + page - 1) & ~(page - 1);
      uintptr_t b = (reinterpret_cast<uintptr_t>(m.original) + ggml_nbytes(m.t)) & ~(page - 1);
      if (b > a) madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);
    }
}

// Resident weights are locked, so no reclaim can take them; where the limit on locked memory
// forbids it they are read once and held by the plan's headroom alone.
void StreamSchedule::LockPinned() {
  pinned_locked_.assign(pinned_.size(), false);
  double pinned = 0, locked = 0;
  int lock_errno = 0;
  // Reading the pinned ranges reads around them too (the model's mapping is advised
  // sequential), into streamed tensors nobody maps. Every few tens of MiB, every cached page of
  // the model that is not mapped is freed (never a pinned one), so that the reads never fill
  // the cap and make the kernel reclaim.
  size_t since_sweep = 0;
  auto sweep = [&] {
    SweepPageCache();
    since_sweep = 0;
  };
  for (size_t i = 0; i < pinned_.size(); i++) {
    pinned += static_cast<double>(pinned_[i].len);
    for (size_t off = 0; off < pinned_[i].len; off += kPinStep) {
      void* a = reinterpret_cast<void*>(pinned_[i].addr + off);
      size_t len = std::min(kPinStep, pinned_[i].len - off);
      if (lock_errno == 0 && mlock(a, len) == 0) {
        locked += static_cast<double>(len);
      } else {
        if (lock_errno == 0) lock_errno = errno;
        Populate(a, len, MADV_POPULATE_READ);
      }
      if ((since_sweep += len) >= kPinStep) sweep();
    }
    pinned_locked_[i] = lock_errno == 0;
  }
  sweep();
  std::lock_guard<std::mutex> l(cnt_mu_);
  counters_.pinned_bytes = pinned;
  counters_.pinned_locked_bytes = locked;
  counters_.lock_error = lock_errno ? std::string("mlock: ") + std::strerror(lock_errno) : "";
  counters_.direct_io = direct_;
}

}  // namespace rf
