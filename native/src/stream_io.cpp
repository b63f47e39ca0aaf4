// The stream schedule's reading side: room for units in the window (a ring), which unit to read
// next, and the I/O threads that read units in requests of a few MiB.
#include "stream.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "clock.h"
#include "ggml.h"

namespace rf {

// Gives a unit's window room back; the ring's tail moves past every freed unit at its front.
void StreamSchedule::ReleaseLocked(int u) {
  Unit& unit = units_[u];
  if (unit.pointed) PointAt(unit, false);
  unit.placed = false;
  state_[u] = kIdle;
  while (!live_.empty() && !units_[live_.front()].placed) live_.pop_front();
  if (live_.empty()) head_ = tail_ = 0;
  else tail_ = units_[live_.front()].off;
}

// Room for `len` bytes at the ring's head (wrapping to its start when the end is too short),
// or false. Units are read and used in a cycle, so the room frees in the order it was taken.
bool StreamSchedule::PlaceLocked(int u, size_t len) {
  size_t at;
  if (live_.empty()) {
    at = 0;
  } else if (head_ > tail_) {
    if (ring_bytes_ - head_ >= len) at = head_;
    else if (tail_ >= len) at = 0;
    else return false;
  } else if (head_ < tail_) {
    if (tail_ - head_ >= len) at = head_;
    else return false;
  } else {
    return false;  // head == tail with units live: full
  }
  if (len > ring_bytes_) return false;
  Unit& unit = units_[u];
  unit.off = at;
  unit.placed = true;
  head_ = at + len == ring_bytes_ ? 0 : at + len;
  if (live_.empty()) tail_ = at;
  live_.push_back(u);
  return true;
}

// The unit compute is waiting for, else the next idle unit of the cycle, when the window has
// room for it: small units are read several at a time, so the device always has requests.
// Its reads are queued in chunks so that several requests keep the device busy.
bool StreamSchedule::StartNextLocked() {
  int u = -1;
  bool urgent = false;
  while (!urgent_.empty() && u < 0) {
    int c = urgent_.front();
    if (state_[c] == kIdle) {
      u = c;
      urgent = true;
    } else {
      urgent_.pop_front();
    }
  }
  const int n = static_cast<int>(order_.size());
  int next_cursor = cursor_;
  for (int k = 0; k < n && u < 0; k++) {
    int c = order_[next_cursor];
    next_cursor = (next_cursor + 1) % n;
    if (state_[c] == kIdle) u = c;
  }
  if (u < 0) return false;
  Unit& unit = units_[u];
  if (!PlaceLocked(u, unit.read_len)) {
    if (!urgent) return false;
    // Compute waits for this one: read-ahead that nobody uses yet makes room.
    for (int v : std::vector<int>(live_.begin(), live_.end()))
      if (v != u && state_[v] == kReady && !units_[v].pointed) ReleaseLocked(v);
    if (!PlaceLocked(u, unit.read_len)) return false;
  }
  if (urgent) urgent_.pop_front();
  else cursor_ = next_cursor;
  state_[u] = kLoading;
  unit.used.assign(unit.members.size(), 0);
  unit.remaining = static_cast<int>(unit.members.size());
  unit.failed = false;
  unit.started = NowMs();
  unit.chunks_left = 0;
  for (size_t off = 0; off < unit.read_len; off += chunk_) {
    chunks_.push_back({u, off, std::min(chunk_, unit.read_len - off)});
    unit.chunks_left++;
  }
  return true;
}

void StreamSchedule::IoLoop() {
  pthread_setname_np(pthread_self(), "ramforge-io");
  for (;;) {
    Chunk c;
    {
      std::unique_lock<std::mutex> lock(mu_);
      io_cv_.wait(lock, [&] { return stop_ || !chunks_.empty() || StartNextLocked(); });
      if (stop_) return;
      c = chunks_.front();
      chunks_.pop_front();
      // More chunks of the unit just started: the other threads take them.
      if (!chunks_.empty()) io_cv_.notify_all();
      if (in_flight_++ == 0) busy_since_ = NowMs();
    }
    ReadChunk(c);
  }
}

void StreamSchedule::ReadChunk(const Chunk& c) {
  Unit& unit = units_[c.unit];
  char* dst = slots_ + unit.off + c.off;
  int fd = fds_[unit.file];
  int64_t off = unit.read_offset + static_cast<int64_t>(c.off);
  size_t done = 0;
  std::string err;
  while (done < c.len) {
    ssize_t r = pread(fd, dst + done, c.len - done, off + static_cast<int64_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = std::string("reading the model failed: ") + std::strerror(errno);
      break;
    }
    if (r == 0) break;  // end of file: the rest of the block is past the last tensor
    done += static_cast<size_t>(r);
  }
  // Short of the unit's tensor bytes means the file shrank under us.
  if (err.empty() && done < c.len) {
    size_t tensor_end = 0;
    for (const auto& m : unit.members) tensor_end = std::max(tensor_end, m.delta + ggml_nbytes(m.t));
    if (c.off + done < tensor_end) err = "the model file ended early (truncated while running?)";
  }
  if (!direct_) posix_fadvise(fd, off, static_cast<off_t>(c.len), POSIX_FADV_DONTNEED);
  bool finished = false;
  double dur = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!err.empty()) unit.failed = true;
    if (--in_flight_ == 0) {
      std::lock_guard<std::mutex> l(cnt_mu_);
      counters_.busy_ms += NowMs() - busy_since_;
    }
    if (--unit.chunks_left == 0) {
      state_[c.unit] = kReady;
      finished = true;
      dur = NowMs() - unit.started;
      // A unit compute waits for may not have found room while this one was still loading.
      if (!urgent_.empty()) io_cv_.notify_one();
    }
  }
  if (!err.empty()) {
    std::lock_guard<std::mutex> l(cnt_mu_);
    counters_.read_errors++;
    if (counters_.error.empty()) counters_.error = err;
  }
  if (finished) {
    ready_cv_.notify_all();
    {
      std::lock_guard<std::mutex> l(cnt_mu_);
      counters_.reads++;
      counters_.read_bytes += static_cast<double>(unit.bytes);
      counters_.read_ms += dur;
    }
    sink_(0, unit.layer, static_cast<double>(unit.bytes), dur);
  }
}

}  // namespace rf
