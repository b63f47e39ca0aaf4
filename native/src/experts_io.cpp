// The expert cache's I/O threads (experts.h): demand reads before read-ahead, each expert's
// slice of a projection read into its slot or the staging buffer.
#include "experts.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "clock.h"
#include "experts_block.h"

namespace rf {

namespace {

// Each I/O thread's buffer for the partial first and last blocks of a slice, and for whole
// slices that cannot lie at their file offset within a page: a slice whose size is not a whole
// number of pages (gpt-oss's MXFP4 experts: 4,406,400 bytes) sits in most slots at another
// offset within a page than in the file. Those are read through it, so it is one huge page: 2
// MiB requests into a huge page ran at twice the rate of smaller ones into small pages here
// (the expert reads of the gpt-oss-120b shape: 1.28 GB/s against the device's 2.5). Charged
// when the thread starts: the runtime budgets EXPERT_IO_BUFFER_BYTES per thread for it.
constexpr size_t kBounce = 2u << 20;

// The buffer, one huge page; null if it cannot be mapped.
char* MapBounce() {
  char* m = MapHugeAligned(kBounce);
  if (m) std::memset(m, 0, kBounce);  // charged now, and touched once from user space (experts_setup.cpp)
  return m;
}

}  // namespace

void ExpertCache::IoLoop() {
  // A read's start and end are on the critical path now that the compute threads run the held
  // experts' products while the misses are read (experts_kernel_wait.cpp): the I/O threads run a
  // little ahead of them where the process may raise a thread's priority (root, or RLIMIT_NICE);
  // elsewhere this fails and nothing changes.
  {
    const id_t tid = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int cur = getpriority(PRIO_PROCESS, tid);
    if (errno == 0) setpriority(PRIO_PROCESS, tid, cur - 5);
  }
  char* bounce = MapBounce();  // this thread's bounce buffer, charged now
  std::vector<char> scratch;   // a repacked group's bytes (experts_repack.cpp)
  for (;;) {
    Job j;
    {
      std::unique_lock<std::mutex> lock(mu_);
      io_cv_.wait(lock, [&] { return stop_ || !demand_.empty() || !ahead_.empty(); });
      if (stop_) break;
      std::deque<Job>& q = !demand_.empty() ? demand_ : ahead_;
      j = q.front();
      q.pop_front();
      if (io_in_flight_++ == 0) io_busy_since_ = NowMs();
    }
    Layer& L = layers_[j.layer];
    const Proj& p = L.projs[j.proj];
    char* dst = j.slot >= 0 ? p.cache + static_cast<size_t>(j.slot) * p.slice : p.staging + static_cast<size_t>(j.expert) * p.slice;
    bool ok = bounce && ReadSlice(p, j.expert, dst, bounce);
    if (ok) Repack(p, dst, scratch);
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.read_bytes += static_cast<double>(p.slice);
      if (--io_in_flight_ == 0) counters_.io_busy_ms += NowMs() - io_busy_since_;
      if (!ok) {
        counters_.read_errors++;
        if (counters_.error.empty()) counters_.error = std::string("reading an expert of layer ") + std::to_string(L.index) + " failed: " + std::strerror(errno);
      }
      if (j.slot >= 0) {
        L.slots[j.slot].pending--;
        if (j.proj < 32) L.slots[j.slot].done |= 1u << j.proj;
      }
      else L.stage_pending--;
      // Only a compute that waits needs to hear of it (a wake is a context switch).
      wake = waiting_ > 0 || !ok;
    }
    if (wake) ready_cv_.notify_all();
  }
  if (bounce) munmap(bounce, kBounce);
}

// One expert's slice of a projection into `dst`. With direct I/O and `dst` at the file's offset
// within a page, the whole blocks go straight into it and only the partial first and last
// blocks through a small buffer; otherwise everything goes through the buffer.
bool ExpertCache::ReadSlice(const Proj& p, int expert, char* dst, char* bounce) {
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
  // Bytes [from, to) of the slice through the buffer (block-aligned reads, copied out).
  auto via_buffer = [&](size_t from, size_t to) {
    size_t at = ExpertAlignDown(off + from);
    while (off + from < off + to) {
      size_t want = std::min(kBounce, ExpertAlignUp(off + to) - at);
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
  const size_t a = ExpertAlignUp(off), b = ExpertAlignDown(off + len);
  if (reinterpret_cast<uintptr_t>(dst) % kExpertBlock != off % kExpertBlock || b <= a) return via_buffer(0, len);
  if (a > off && !via_buffer(0, a - off)) return false;
  if (full(dst + (a - off), b - a, a) != b - a) return false;
  if (off + len > b && !via_buffer(b - off, len)) return false;
  return true;
}

}  // namespace rf
