// The residency engine's native half: it executes a plan made in TypeScript. For each layer
// it knows the page-aligned address ranges that belong to that layer alone (never a page shared
// with a pinned tensor) and the matching file ranges. Under the `stream` policy it prefetches
// the next streamed layers on an I/O thread and drops a streamed layer as soon as the next
// layer starts, at layer boundaries observed through the scheduler's eval callback.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct ggml_tensor;

namespace rf {

struct ResidencyRange {
  uintptr_t addr = 0;  // page aligned
  size_t len = 0;      // page multiple
  int file = -1;       // index into files, -1 when not file backed
  int64_t file_offset = 0;
};

struct ResidencyLayer {
  int index = 0;
  int tier = 0;  // 0 pinned, 1 streamed, 2 vram
  std::vector<ResidencyRange> ranges;
};

struct ResidencyEventRec {
  double t_ms;
  int kind;  // 0 prefetch, 1 drop, 2 late, 3 stall, 4 release
  int layer;
  double bytes;
  double dur_ms;
};

enum class Policy { Off, Observe, Conservative, MemoryBound, ReuseAware, Stream };

// One scheduler node seen by the eval callback's look-ahead scan during a traced decode.
struct TraceNode {
  std::string name;
  std::string op;
  std::vector<std::string> srcs;
  double bytes;
  int group;  // node groups are separated by the points where compute was observed
};

struct TraceResult {
  std::vector<TraceNode> nodes;
  size_t dropped = 0;
  bool captured = false;  // a decode was traced at all
};

class Residency {
 public:
  Residency();
  ~Residency();

  // Replaces the plan. Opens the files for fadvise. Returns an error message or "".
  std::string Configure(Policy policy, std::vector<ResidencyLayer> layers, const std::vector<std::string>& files,
                        int prefetch_depth, size_t target_bytes,
                        std::vector<int> release_order);
  Policy policy() const { return policy_; }
  bool wants_callback() const { return policy_ == Policy::Stream; }

  // ggml_backend_sched_eval_callback
  static bool EvalCallback(ggml_tensor* t, bool ask, void* user);

  // Bounded capture of the next single-token decode graph (max_events nodes; more are counted
  // as dropped and the trace is marked incomplete).
  void ArmTrace(size_t max_events);
  TraceResult TakeTrace();

  void OnDecodeStart(int n_tokens);
  void OnDecodeEnd();

  // Between operations (after each decoded token): the release policies act here.
  void BetweenTokens();

  // mincore over each layer's ranges.
  std::vector<double> ResidentBytes();
  std::vector<ResidencyEventRec> TakeEvents();
  struct Counters {
    double prefetch_bytes = 0, dropped_bytes = 0, released_bytes = 0;
    int prefetches = 0, prefetch_hits = 0, late = 0, drops = 0;
    double stall_ms = 0;
  };
  Counters counters();

  // Exposed for --release-layer N / tests: drop one layer's exclusive pages now.
  double DropLayer(int layer, bool fadvise_neighbours);
  double PrefetchLayerSync(int layer);

 private:
  void OnLayerStart(int layer);
  void RequestPrefetch(int layer);
  void IoLoop();
  double Now() const;
  void Event(int kind, int layer, double bytes, double dur_ms);
  int PosInStreamed(int layer) const;

  Policy policy_ = Policy::Off;
  std::vector<ResidencyLayer> layers_;
  std::vector<int> fds_;
  std::vector<int> streamed_;  // layer indices, ascending
  std::vector<int> release_order_;  // streamed layers in the order the plan wants them released
  int prefetch_depth_ = 4;
  size_t target_bytes_ = 0;
  int current_layer_ = -1;
  int last_dropped_ = -1;

  std::mutex mu_;
  std::condition_variable cv_;
  // Prefetch work is split into chunks so several I/O threads keep the device busy: one
  // thread faulting a layer in reached ~1.1 GB/s here, the disk does more with more requests
  // in flight.
  struct Chunk {
    int layer;
    uintptr_t addr;
    size_t len;
  };
  std::deque<Chunk> queue_;
  std::vector<int> state_;  // per layer: 0 idle, 1 queued, 2 loading, 3 ready
  std::vector<int> pending_;  // chunks of the layer not yet read
  std::vector<double> started_at_;
  int inflight_ = 0;
  std::vector<std::thread> io_;
  bool stop_ = false;

  std::mutex ev_mu_;
  std::vector<ResidencyEventRec> events_;
  Counters counters_;
  double t0_;

  std::mutex trace_mu_;
  bool trace_armed_ = false;
  bool trace_active_ = false;
  size_t trace_max_ = 0;
  int trace_group_ = 0;
  TraceResult trace_;
};

Policy PolicyFromString(const std::string& s, bool* ok);

}  // namespace rf
