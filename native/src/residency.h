// The residency engine's native half: it executes a plan made in TypeScript. For each layer
// it knows the page-aligned address ranges that belong to that layer alone (never a page shared
// with a pinned tensor) and the matching file ranges; the release policies act on those between
// tokens. The `stream` policy hands the plan's units to the streaming schedule (stream.h),
// which acts inside each decode through the scheduler's eval callback.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "experts.h"
#include "remote_wait.h"
#include "routing.h"
#include "stream.h"

struct ggml_tensor;

namespace rf {

using ResidencyRange = MappedRange;

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
                        size_t target_bytes, std::vector<int> release_order, StreamConfig stream,
                        ExpertConfig experts, const std::unordered_map<std::string, ggml_tensor*>& tensors);
  Policy policy() const { return policy_; }
  int layer_count() const { return static_cast<int>(layers_.size()); }

  // ggml_backend_sched_eval_callback
  static bool EvalCallback(ggml_tensor* t, bool ask, void* user);

  // Bounded capture of the next single-token decode graph (max_events nodes; more are counted
  // as dropped and the trace is marked incomplete).
  void ArmTrace(size_t max_events);
  TraceResult TakeTrace();

  // phase: 0 a prompt, 1 decoding, -1 unknown (the routing tap guesses by size).
  void OnDecodeStart(int n_tokens, int phase = -1);
  // ggml's Vulkan backend grows its scratch buffers in the middle of a graph when a node needs
  // more than the graphs before it did, while earlier nodes of the same submission still use the
  // old ones (llama.cpp PR 24312; on lavapipe a SIGSEGV or a corrupted heap, with a mixture of
  // experts in every placement that puts experts on the device, under the graph trace too).
  // With this on, the first decode of each batch size since the last Configure computes every
  // node on its own, so a buffer only grows where nothing else has used it yet.
  void GuardNewBatchSizes(bool on) { guard_sizes_ = on; }
  void OnDecodeEnd();

  // Between operations (after each decoded token): the release policies act here.
  void BetweenTokens();

  // mincore over each layer's ranges.
  std::vector<double> ResidentBytes();
  std::vector<ResidencyEventRec> TakeEvents();
  struct Counters {
    double dropped_bytes = 0, released_bytes = 0;
    int drops = 0;
  };
  Counters counters();
  // The streaming schedule's counters and pinned residency (null schedule: zeros, -1).
  StreamCounters stream_counters();
  double PinnedResidentBytes();
  // The expert cache (a mixture of experts under the stream policy), or null.
  ExpertCache* experts() { return experts_.get(); }
  // A streamed read failed (the decode that saw it must fail): the message, else "".
  std::string StreamError();

  // The routing tap (record, replay) of a mixture of experts, or null. Returns "" or an error.
  std::string ConfigureRouting(RouteConfig cfg);
  RouteTap* routing() { return route_.get(); }

  // Times the waits on these RPC nodes (the model's offloaded layers) from now on.
  void WatchRemote(const std::vector<std::string>& endpoints) { remote_ = std::make_unique<RemoteWait>(endpoints); }
  RemoteWait* remote() { return remote_.get(); }

  // Exposed for --release-layer N / tests: drop one layer's exclusive pages now.
  // kind: the event it is recorded as (1 drop by hand, 4 release by a policy).
  double DropLayer(int layer, bool fadvise_neighbours, int kind = 1);
  double PrefetchLayerSync(int layer);

 private:
  double Now() const;
  void Event(int kind, int layer, double bytes, double dur_ms);

  Policy policy_ = Policy::Off;
  std::vector<ResidencyLayer> layers_;
  std::vector<int> fds_;
  std::vector<int> streamed_;        // layer indices with streamed tensors, ascending
  std::vector<int> release_order_;  // layers in the order the plan wants them released
  size_t target_bytes_ = 0;
  std::unique_ptr<StreamSchedule> stream_;
  std::unique_ptr<ExpertCache> experts_;
  std::unique_ptr<RemoteWait> remote_;
  std::unique_ptr<RouteTap> route_;

  std::mutex ev_mu_;
  std::vector<ResidencyEventRec> events_;
  Counters counters_;
  double t0_;

  std::mutex trace_mu_;
  bool guard_sizes_ = false;
  bool isolate_ = false;
  std::vector<int> seen_sizes_;
  bool trace_armed_ = false;
  bool trace_active_ = false;
  size_t trace_max_ = 0;
  int trace_group_ = 0;
  TraceResult trace_;
};

Policy PolicyFromString(const std::string& s, bool* ok);

}  // namespace rf
