// The streaming schedule: executes the plan's split of the weights into resident tensors
// (locked in RAM for the whole run) and streamed units (read just before use, released right
// after it). Decode uses every weight once per pass in a fixed order, so the schedule is a
// cycle over the streamed units.
//
// Streamed weights never go through the page cache or the model's mapping. Anonymous memory,
// mapped once and kept, forms the streaming window, used as a ring; I/O threads read each unit
// with direct I/O into room at its head, and just before the scheduler computes a node that uses
// the unit, the unit's tensors are pointed there; after the last such node they point back at
// the mapping and the room is free again. So reading costs no page-cache charge, no read-ahead
// past the unit, no mapping churn (new page-table entries are expensive under virtualization:
// ~1.4 µs per 4 KiB page on first touch, measured here, i.e. 100+ ms per 400 MB pass), and
// nothing has to be dropped. A tensor the schedule does not see coming still points at the
// mapping, so compute always reads the right bytes.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

struct ggml_tensor;

namespace rf {

// A page-aligned range of the model mapping and the file bytes behind it.
struct MappedRange {
  uintptr_t addr = 0;  // page aligned
  size_t len = 0;      // page multiple
  int file = -1;       // index into the model's files
  int64_t file_offset = 0;
};

struct StreamTensorSpec {
  std::string name;
  int64_t file_offset = 0;  // of the tensor's data
  size_t bytes = 0;
};

struct StreamUnitSpec {
  int layer = -1;
  int file = -1;
  std::vector<StreamTensorSpec> tensors;  // adjacent in the file
};

struct StreamConfig {
  std::vector<StreamUnitSpec> units;  // in the order decode is expected to use them
  size_t window_bytes = 0;            // the slots together
  std::vector<MappedRange> pinned;    // resident weights: locked (or at least read) once
  std::vector<MappedRange> random;    // rarely touched ranges (token_embd rows): no read-around
  int io_threads = 4;
  size_t io_chunk_bytes = 4 << 20;
  // O_DIRECT reads where the file system allows them; false reads through the page cache
  // (dropped right after). residencyConfigure's stream.directIo (default true).
  bool direct_io = true;
};

struct StreamCounters {
  double read_bytes = 0;    // bytes of units read
  double read_ms = 0;       // wall time units took to read (first chunk issued → last done)
  double busy_ms = 0;       // wall time at least one read was in flight
  double stall_ms = 0;      // time compute waited for a unit
  int reads = 0, hits = 0, stalls = 0, late = 0, releases = 0;
  double splits = 0;        // graph splits requested (scheduler callbacks)
  double pinned_bytes = 0, pinned_locked_bytes = 0;
  double slot_bytes = 0;    // the streaming window as allocated
  int slots = 0;
  int read_errors = 0;
  bool direct_io = false;   // O_DIRECT reads (else buffered reads, page cache dropped after)
  std::string lock_error;   // why pinned weights could not be locked ("" when they were)
  std::string error;        // a failed read: the run must stop
};

// Events for the timeline: kind 0 read, 1 release, 2 late (read on demand), 3 stall.
using StreamEventSink = std::function<void(int kind, int layer, double bytes, double dur_ms)>;

class StreamSchedule {
 public:
  explicit StreamSchedule(StreamEventSink sink);
  ~StreamSchedule();
  StreamSchedule(const StreamSchedule&) = delete;
  StreamSchedule& operator=(const StreamSchedule&) = delete;

  // tensors: every weight of the model by name. Returns "" or an error message.
  std::string Configure(StreamConfig cfg, const std::vector<std::string>& files,
                        const std::unordered_map<std::string, ggml_tensor*>& tensors);

  // The scheduler's eval callback halves: ask (before a node runs, in graph order) and
  // computed (after a node we asked for has run; false stops the graph: a read failed).
  bool Ask(ggml_tensor* t);
  bool Computed(ggml_tensor* t);

  // Between tokens: drops the rows-only pages compute faulted in (token_embd rows).
  void BetweenTokens();
  StreamCounters counters();
  // Resident bytes of the pinned ranges (mincore), -1 when unknown.
  double PinnedResidentBytes() const;
  size_t unit_count() const { return units_.size(); }
  // A read failed: the message, else "".
  std::string error();

 private:
  // Configure's steps: the files opened (direct where they allow it), the units built from the
  // plan (returns the largest read), the window mapped, the mapping's copies of streamed
  // tensors dropped, the pinned ranges locked. Each returns "" or why it failed.
  std::string OpenFiles(const std::vector<std::string>& files, bool direct, std::vector<int64_t>* sizes);
  std::string BuildUnits(const StreamConfig& cfg, const std::vector<int64_t>& sizes,
                         const std::unordered_map<std::string, ggml_tensor*>& tensors, size_t* largest);
  std::string MapWindow(size_t window_bytes, size_t largest);
  void DropMappedCopies();
  void LockPinned();

  enum State : int { kIdle = 0, kLoading = 1, kReady = 2 };
  struct Member {
    ggml_tensor* t;
    void* original;   // the tensor's data in the model's mapping
    size_t delta;     // offset of its data inside the unit's read range
  };
  struct Unit {
    int layer;
    int file;
    int64_t read_offset;  // block aligned
    size_t read_len;      // block multiple
    size_t bytes;         // tensor bytes
    std::vector<Member> members;
    std::vector<char> used;  // per member: consumed since the unit was read
    int remaining = 0;
    size_t off = 0;        // where in the window the unit is read, while placed
    bool placed = false;
    bool pointed = false;  // members point at the slot
    int chunks_left = 0;
    double started = 0;
    bool failed = false;
  };
  struct Chunk {
    int unit;
    size_t off;  // within the unit's read range
    size_t len;
  };

  void IoLoop();
  bool StartNextLocked();
  void ReadChunk(const Chunk& c);
  void Release(int u);
  void ReleaseLocked(int u);
  bool PlaceLocked(int u, size_t len);
  void Learn(int u);
  void PointAt(Unit& unit, bool slot);
  int UnitsOf(ggml_tensor* t, int* out, int max) const;
  // Frees every cached page of the model's files that no mapping holds (locked and mapped
  // weights stay): read-around the schedule never asked for.
  void SweepPageCache();

  StreamEventSink sink_;
  std::vector<Unit> units_;
  std::unordered_map<const ggml_tensor*, std::pair<int, int>> unit_of_;  // weight -> (unit, member)
  std::unordered_set<const ggml_tensor*> weights_;                     // every weight (split points)
  std::vector<int> order_;  // cyclic read order
  std::vector<int> pos_;    // unit -> position in order_
  std::vector<MappedRange> pinned_;
  std::vector<bool> pinned_locked_;
  std::vector<MappedRange> random_;
  std::vector<int> fds_;          // reads (O_DIRECT where the file system allows it)
  std::vector<int> advise_fds_;   // page-cache advice (buffered descriptors)
  bool direct_ = false;
  size_t block_ = 4096;
  char* slots_ = nullptr;      // 2 MiB aligned, inside slots_map_
  char* slots_map_ = nullptr;
  size_t largest_ = 0, slots_len_ = 0;
  // The window is a ring: units take room at the head in the order they are read and give it
  // back at the tail in the order they are used.
  size_t ring_bytes_ = 0, head_ = 0, tail_ = 0;
  std::deque<int> live_;  // units holding room, in the order they took it
  size_t chunk_ = 2 << 20;
  int tokens_since_rows_drop_ = 0;
  // Passes after which the page cache was swept again (see BetweenTokens).
  static constexpr int kSweptPasses = 3;
  int passes_swept_ = 0;

  std::mutex mu_;
  std::condition_variable io_cv_;     // I/O threads: chunks to read or a slot to fill
  std::condition_variable ready_cv_;  // compute: a unit became ready
  std::vector<int> state_;
  std::deque<int> urgent_;
  std::deque<Chunk> chunks_;
  int cursor_ = 0;
  int in_flight_ = 0;
  double busy_since_ = 0;
  bool stop_ = false;
  std::vector<std::thread> io_;

  // Order learning: units in the order their first weight was used in the current pass.
  std::vector<int> seen_order_;
  std::vector<char> seen_;

  std::mutex cnt_mu_;
  StreamCounters counters_;
};

}  // namespace rf
