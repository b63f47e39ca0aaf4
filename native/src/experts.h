// The expert cache of a mixture of experts under the stream policy. A decoded token uses a few
// experts per MoE layer (its router's top k), and ggml's MUL_MAT_ID reads only the routed
// experts' slices of each expert tensor (expert e at data + e·nb[last]), so the unit of
// residency is the expert, not the tensor.
//
// Each expert tensor of a layer points, for the whole run, at a small buffer of `slots` expert
// slices (anonymous memory, charged once at setup) instead of the model's mapping. After a
// layer's router has chosen (the `ffn_moe_topk` node), the chosen experts that no slot holds are
// read with direct I/O into the least recently used slots — the projections of an expert
// together, on I/O threads — and the layer's expert ops are pointed at a copy of the selection
// that holds slot indices, so ggml computes on the slots while every other reader of the
// selection still sees expert ids. The router's node is then the only place the scheduler has to
// stop in a layer: every stop is a barrier of the compute threads, and a dozen a layer cost as
// much as the layer's arithmetic. A micro-batch
// that routes to more experts than the cache holds (a prompt) is computed from a staging buffer
// that holds every expert of one layer: each layer's experts are read once per micro-batch.
// While a layer computes, the next layer's router is applied to the current hidden state and
// the experts it predicts are read ahead; the prediction's accuracy is counted. Where the expert
// ops read a tensor derived from the selection instead of the selection itself (learned from a
// layer's first micro-batch), that tensor is rewritten in place before the first expert op, with
// every node between the two computed on its own, and holds expert ids again after the layer's
// last expert op (for what reads it after the experts). Read-ahead runs
// only while the measured precision of recent predictions pays for their bytes (a wrong guess
// costs a read the disk could have spent on a demand): below it, predictions are still made
// and measured, but nothing is read on them. Read-ahead still queued when the layer's real
// routing arrives is dropped where the routing did not choose it.
//
// With a GPU (ExpertConfig::device), a tier sits above the RAM slots: each layer's expert
// tensors are pointed at a few slots in device memory (their expert count cut to the slots), so
// the scheduler runs the expert ops on the device; after the router has chosen, the chosen
// experts no device slot holds are fetched through the RAM slots as above (a RAM hit, or a read
// from storage) and uploaded into the least used device slots before the first expert op. A
// micro-batch routed to more experts than the device slots hold computes from a device staging
// buffer of one layer's experts, uploaded from the RAM staging buffer.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "host_tensor.h"
#include "stream.h"

struct ggml_tensor;
struct ggml_backend_buffer;
struct ggml_backend_device;

namespace rf {

struct ExpertTensorSpec {
  std::string name;
  int layer = -1;
  int file = -1;
  int64_t file_offset = 0;  // of the tensor's data
};

struct ExpertConfig {
  std::vector<ExpertTensorSpec> tensors;
  int slots_per_layer = 0;  // experts each MoE layer's cache holds
  bool staging = true;      // room for a micro-batch routed to more experts than the cache holds
  bool predict = true;      // read the next layer's predicted experts ahead
  bool lfu = false;         // evict the least frequently used (decayed counts), else the least recently used
  bool repack = false;      // slots in the CPU kernels' repacked layout (experts_repack.cpp)
  // Lossy, off at 0: a decoded token's expert that no slot holds and that its router weighted
  // below this (its share of the token's selected experts' weight) is not read; the expert ops
  // compute it from a slot of zeros, so it adds nothing to the layer's output.
  float skip_below = 0.0f;
  // Per MoE layer (by its block index), experts to read into its slots at setup, most used
  // first: what earlier runs of the model routed to most, so decode does not start from an
  // empty cache. Setup returns once they are read.
  std::vector<std::pair<int, std::vector<int>>> warm;
  int io_threads = 4;
  // A GPU tier above the RAM slots (experts_device.cpp): with a ggml device named here, each
  // layer's expert tensors live in `device_slots` slots in that device's memory and the expert
  // ops run there; an expert no device slot holds is uploaded from the RAM slots (read from
  // storage first when they miss too). Empty: the RAM cache alone, computed on the CPU.
  std::string device;
  int device_slots = 0;
};

struct ExpertCounters {
  double routed = 0;        // (layer, expert) pairs micro-batches needed
  double hits = 0;          // of them, in a slot before the micro-batch was routed (cache hits)
  double prefetch_hits = 0; // of them, read ahead on a prediction (in a slot or still being read)
  double loads = 0;         // experts read into a slot
  double prefetches = 0;    // of them, read ahead on a prediction
  double read_bytes = 0;
  // Time at least one expert read was in flight: read_bytes over it is the rate the expert reads
  // got from the device while they ran, whatever the compute did between them.
  double io_busy_ms = 0;
  double stall_ms = 0;      // compute waited for an expert
  int stalls = 0;
  double predicted = 0;     // routed experts a prediction was made for
  double predicted_right = 0;
  double staged = 0;        // micro-batch × layer computed from the staging buffer
  double promoted = 0;      // experts copied from the staging buffer into slots (PromoteStagedLocked)
  double prefetch_dropped = 0;      // read-ahead jobs dropped before their read (the real routing came first)
  double prefetch_wasted_bytes = 0; // bytes read ahead for experts evicted or dropped before any use
  double predictions_issued = 0;    // predictions whose experts were read ahead (others only measured)
  double predictions = 0;           // predictions made (issued or measured)
  double slot_bytes = 0;    // the cache's slots and the staging buffer, as allocated
  double warmed = 0;        // experts read into slots at setup (ExpertConfig::warm)
  double skipped = 0;       // routed experts not read (skip_below): misses weighted below it
  double skipped_weight = 0;  // their router weights, summed
  double device_hits = 0;   // routed experts found in a device slot (counted neither in hits nor loads)
  double uploads = 0;       // experts copied from RAM into device memory
  double upload_bytes = 0;
  double device_slot_bytes = 0;  // device memory the slots and the device staging buffer hold
  int device_slots_per_layer = 0;
  std::string device;
  int slots_per_layer = 0;
  int layers = 0;
  int experts = 0;
  int read_errors = 0;
  bool direct_io = false;
  int repacked_projections = 0;  // expert tensors kept in the CPU kernels' repacked layout
  std::string error;
};

class ExpertCache {
 public:
  explicit ExpertCache(StreamEventSink sink);
  ~ExpertCache();
  ExpertCache(const ExpertCache&) = delete;
  ExpertCache& operator=(const ExpertCache&) = delete;

  // tensors: every weight of the model by name. Returns "" or an error message.
  std::string Configure(ExpertConfig cfg, const std::vector<std::string>& files,
                        const std::unordered_map<std::string, ggml_tensor*>& tensors);
  // The scheduler's eval callback halves (see StreamSchedule::Ask/Computed).
  bool Ask(ggml_tensor* t);
  bool Computed(ggml_tensor* t);
  ExpertCounters counters();
  // Per MoE layer (in layer order): its index, the expert each slot holds (-1: none) and how
  // many micro-batches were routed to each expert.
  struct LayerState {
    int layer;
    std::vector<int> slots;
    std::vector<double> uses;
    std::vector<int> device_slots;  // the expert each device slot holds (empty: no device tier)
  };
  std::vector<LayerState> Residents();
  // Asked by ggml's CPU MUL_MAT_ID before it computes with slot `slot` of the expert tensor `w`
  // (experts_kernel_wait.cpp): whether its bytes are read; with `wait`, once they are.
  bool KernelReady(const ggml_tensor* w, int64_t slot, bool wait);
  // Every slot emptied (none being read), as after setup: a later pass starts from a cold cache.
  // Counters and use counts stay. Call between passes only.
  void Empty();
  std::string error();

 private:
  // Configure's steps: the files opened (direct where they allow it), the expert tensors
  // checked and grouped by layer, each layer's slots mapped, the shared staging buffer mapped.
  // Each returns "" or why it failed.
  std::string OpenFiles(const std::vector<std::string>& files);
  std::string AddTensors(const std::unordered_map<std::string, ggml_tensor*>& tensors);
  std::string MapSlots(int slots);
  std::string MapStaging();
  void WarmSlots();
  void SetUpRepack();
  void RestoreTensors();
  // The device tier (experts_device.cpp).
  std::string MapDevice();
  void FreeDevice();
  struct Layer;
  std::vector<int> DeviceAssignLocked(Layer& L, const std::vector<int>& need, const std::vector<char>& keep);
  void PointDevice(Layer& L, bool staging);
  void Upload(Layer& L);
  void DeviceSlotIds(Layer& L, ggml_tensor* c);
  struct Proj {
    ggml_tensor* t = nullptr;
    void* original = nullptr;  // the tensor's data in the model's mapping
    int file = -1;
    int64_t file_offset = 0;
    size_t slice = 0;  // bytes of one expert
    char* cache = nullptr;    // slots × slice
    char* staging = nullptr;  // experts × slice, or null
    // Where ggml's CPU kernels have a repacked layout for the type (rows interleaved in groups,
    // as llama.cpp repacks weights it holds in RAM): a group of rows of one slice, each slice
    // repacked group by group after its read (a group's bytes stay where they were), else null.
    std::shared_ptr<ggml_tensor> group;
    size_t group_bytes = 0;
    ggml_backend_buffer* original_buffer = nullptr;
    void* original_extra = nullptr;
    // The device tier: the tensor's slots and the shared staging buffer in device memory, and
    // its shape in the model (the device's copy holds fewer experts: ne[dim] is the slot count).
    ggml_backend_buffer* dev_slots = nullptr;
    ggml_backend_buffer* dev_staging = nullptr;
    ggml_backend_buffer* home_buffer = nullptr;
    int dim = 0;
    int64_t home_ne[4] = {0, 0, 0, 0};
    size_t home_nb[4] = {0, 0, 0, 0};
  };
  struct Slot {
    int expert = -1;
    uint64_t last_use = 0;
    int pending = 0;          // projections still being read
    uint32_t done = 0;        // of them, read already (bit p: projection p), so its op can run
    bool prefetched = false;  // read on a prediction, not yet needed
  };
  struct Layer {
    int index = -1;
    std::vector<Proj> projs;
    std::vector<Slot> slots;
    std::vector<int> slot_of;  // expert -> slot, -1
    std::vector<float> freq;   // decayed use count per expert (LFU)
    std::vector<double> uses;  // micro-batches routed to each expert since setup
    ggml_tensor* router = nullptr;     // ffn_gate_inp: predicts this layer's experts
    ggml_tensor* router_in = nullptr;  // the input its router was applied to in this pass
    // The micro-batch in progress.
    bool prepared = false;   // the routing is known and its experts are being read
    bool staged = false;     // the projections point at the staging buffer
    bool rewrite = false;    // the selection must become slot indices before the first expert op
    std::vector<int> need;   // experts this micro-batch routes to
    std::vector<int> index_of;  // expert -> slot (cache) or staging index for the rewrite
    int zero_slot = -1;         // a slot of zeros that skipped experts are computed from (skip_below)
    ggml_tensor* ids = nullptr;       // the selection rewritten to slot indices, until Restore
    std::vector<int32_t> ids_experts; // what it held: the experts' ids
    // The selection the router's node computed in this micro-batch, and the expert ops' copy of
    // it in slot indices (same shape and strides, its own bytes). direct: 1 when the expert ops
    // read the router's selection itself (they are pointed at the copy), 0 when they read a
    // tensor derived from it (rewritten in place), -1 before the first expert op was seen.
    const ggml_tensor* topk = nullptr;
    std::shared_ptr<ggml_tensor> slot_ids;
    std::vector<int32_t> slot_ids_bytes;
    ggml_tensor* ids_source = nullptr;  // what the expert ops read before they were pointed at the copy
    int direct = -1;
    // The expert op about to run waits inside the kernel, slot by slot (KernelReady), not
    // before it starts.
    bool kernel_wait = false;
    int stage_pending = 0;   // staging reads outstanding
    int ops_done = 0;        // expert ops (MUL_MAT_ID, ADD_ID) computed in this micro-batch
    std::vector<int> predicted;  // experts predicted for the next micro-batch
    // The selection node itself (in device memory on a GPU); `topk` is what the host reads.
    ggml_tensor* topk_node = nullptr;
    HostCopy topk_copy;  // where `topk` is read from when the node is in device memory
    // The device tier: what each device slot holds, expert -> device slot, the index the expert
    // ops read each expert at (a device slot, or its id in the device staging buffer), the
    // uploads the next expert op waits for (expert, index), whether the tensors point at the
    // device staging buffer, the device copy of the selection's bytes, the router on the host.
    std::vector<Slot> dslots;
    std::vector<int> dslot_of;
    std::vector<int> dindex_of;
    std::vector<std::pair<int, int>> uploads;
    bool dev_staged = false;
    ggml_backend_buffer* dev_ids = nullptr;
    std::vector<char> router_host;
  };
  struct Job {
    int layer;      // index into layers_
    int slot;       // cache slot, or -1 for the staging buffer
    int expert;
    int proj;
  };

  void Repack(const Proj& p, char* slice, std::vector<char>& scratch) const;
  int LayerOfProj(const ggml_tensor* w, int* proj) const;
  int TopkLayer(const ggml_tensor* t) const;
  // ids: the selection as the host reads it; node: the graph's selection node itself.
  void Route(Layer& L, int li, const ggml_tensor* ids, ggml_tensor* node);
  void Routed(Layer& L, bool dev_staged);
  void CountRoutedLocked(Layer& L, const std::vector<int>& need, const std::vector<char>& keep);
  void StageAll(Layer& L, int li);
  // skip_below: a decoded token's router weight per expert (its share of the selected experts'
  // weight), or empty where the selection is not one token's or its weights cannot be read
  // (experts_skip.cpp).
  std::vector<float> TokenWeights(const ggml_tensor* ids) const;
  void Stage(Layer& L, int li, std::vector<int> need);
  void Rewrite(Layer& L, ggml_tensor* ids);
  void FillSlotIds(Layer& L);
  // An expert op about to run: its selection operand for this micro-batch (the copy in slot
  // indices, the selection rewritten in place, or expert ids for the staging buffer). Returns
  // whether the scheduler must stop after the op.
  bool PointSelection(Layer& L, ggml_tensor* op);
  void Restore(Layer& L);
  void Predict(int li);
  int VictimLocked(Layer& L, const std::vector<char>& keep);
  int Coldest(const Layer& L, const std::vector<Slot>& slots, const std::vector<char>& keep) const;
  void PointAt(Layer& L, bool staging);
  void WaitReady(Layer& L, int proj);
  void RegisterKernelWait();
  void UnregisterKernelWait();
  void IoLoop();
  bool ReadSlice(const Proj& p, int expert, char* dst, char* bounce);

  StreamEventSink sink_;
  ExpertConfig cfg_;
  std::vector<Layer> layers_;
  std::unordered_map<int, int> by_index_;                        // model layer -> layers_ index
  std::unordered_map<const ggml_tensor*, std::pair<int, int>> proj_of_;  // weight -> (layer, proj)
  std::unordered_map<const ggml_tensor*, int> router_of_;        // router weight -> layer
  std::vector<int> fds_;
  bool direct_ = false;
  int experts_ = 0;
  uint64_t tick_ = 0;
  std::vector<char*> maps_;
  ggml_backend_buffer* repack_buffer_ = nullptr;  // marks repacked expert tensors for ggml-cpu
  struct ggml_backend_device* device_ = nullptr;  // the device tier's, or null
  std::vector<ggml_backend_buffer*> dev_buffers_;
  std::vector<size_t> map_lens_;

  std::mutex mu_;
  std::condition_variable io_cv_, ready_cv_;
  std::deque<Job> demand_, ahead_;
  double precision_ = 0.5;  // recent predictions' precision (exponentially weighted)
  int quiet_predictions_ = 0;  // micro-batches seen while read-ahead did not pay
  int staged_layer_ = -1;      // the layer whose routed experts the staging buffer holds
  void PromoteStagedLocked();
  int waiting_ = 0;            // compute threads waiting on ready_cv_ (I/O threads wake only them)
  bool kernel_wait_ = false;   // the expert ops wait slot by slot inside ggml-cpu's kernel
  int kernel_waiters_ = 0;     // compute threads waiting there now
  double kernel_wait_since_ = 0;
  int io_in_flight_ = 0;       // reads the I/O threads are doing (io_busy_ms)
  double io_busy_since_ = 0;
  void WakeIo(size_t jobs);
  void DropAheadLocked(Layer& L, int li, const std::vector<char>& keep);
  void WastedLocked(Layer& L, const Slot& s);
  bool stop_ = false;
  std::vector<std::thread> io_;
  ExpertCounters counters_;
};

}  // namespace rf
