// The expert cache's device tier (experts.h, ExpertConfig::device): each layer's expert tensors
// in a few slots of device memory, filled from the RAM slots, so that the expert ops run on the
// GPU and a token's hot experts are not copied again.
#include <algorithm>
#include <cstring>

#include "experts.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "host_tensor.h"

namespace rf {

namespace {

// Zeroed bytes after each device buffer's last expert: a backend may read a quantized row's
// padding past the tensor's end (CUDA pads rows to 512 values), which must hold no NaN.
constexpr size_t kDevicePad = 64 << 10;

}  // namespace

std::string ExpertCache::MapDevice() {
  device_ = ggml_backend_dev_by_name(cfg_.device.c_str());
  if (!device_) return "the expert cache's device '" + cfg_.device + "' is not one of ggml's devices";
  if (cfg_.skip_below > 0.0f) return "skipping cold experts is not available with expert slots in device memory (the router's weights are there)";
  const int ds = std::min(cfg_.device_slots, experts_);
  if (ds < 1) return "the expert cache's device tier needs at least one slot per layer";
  ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(device_);
  const std::string where = std::string(" on ") + ggml_backend_dev_name(device_);
  auto alloc = [&](size_t bytes) -> ggml_backend_buffer* {
    ggml_backend_buffer* b = ggml_backend_buft_alloc_buffer(buft, bytes + kDevicePad);
    if (!b) return nullptr;
    ggml_backend_buffer_set_usage(b, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_buffer_clear(b, 0);
    dev_buffers_.push_back(b);
    counters_.device_slot_bytes += static_cast<double>(ggml_backend_buffer_get_size(b));
    return b;
  };
  std::vector<size_t> largest;
  for (auto& L : layers_) {
    L.dslots.assign(ds, Slot());
    L.dslot_of.assign(experts_, -1);
    L.dindex_of.assign(experts_, -1);
    for (size_t pi = 0; pi < L.projs.size(); pi++) {
      Proj& p = L.projs[pi];
      p.dim = ggml_n_dims(p.t) - 1;
      std::copy(p.t->ne, p.t->ne + 4, p.home_ne);
      std::copy(p.t->nb, p.t->nb + 4, p.home_nb);
      p.home_buffer = p.t->buffer;
      p.dev_slots = alloc(p.slice * static_cast<size_t>(ds));
      if (!p.dev_slots) return "cannot allocate " + std::to_string(ds) + " expert slots of " + p.t->name + where;
      if (largest.size() <= pi) largest.resize(pi + 1, 0);
      largest[pi] = std::max(largest[pi], p.slice);
    }
  }
  if (ds < experts_ && cfg_.staging)
    for (size_t pi = 0; pi < largest.size(); pi++) {
      ggml_backend_buffer* b = alloc(largest[pi] * static_cast<size_t>(experts_));
      if (!b) return "cannot allocate the device staging buffer (" + std::to_string(experts_) + " experts)" + where;
      for (auto& L : layers_)
        if (pi < L.projs.size()) L.projs[pi].dev_staging = b;
    }
  for (auto& L : layers_) PointDevice(L, false);
  counters_.device_slots_per_layer = ds;
  counters_.device = ggml_backend_dev_name(device_);
  return "";
}

void ExpertCache::FreeDevice() {
  for (auto& L : layers_) {
    for (auto& p : L.projs) {
      if (!p.dev_slots) continue;
      std::copy(p.home_ne, p.home_ne + 4, p.t->ne);
      std::copy(p.home_nb, p.home_nb + 4, p.t->nb);
      p.t->buffer = p.home_buffer;
    }
    if (L.dev_ids) ggml_backend_buffer_free(L.dev_ids);
    L.dev_ids = nullptr;
  }
  for (auto* b : dev_buffers_) ggml_backend_buffer_free(b);
  dev_buffers_.clear();
}

// The layer's expert tensors in device memory: the slots (the expert count cut to them) or the
// staging buffer (every expert at its own index).
void ExpertCache::PointDevice(Layer& L, bool staging) {
  for (auto& p : L.projs) {
    ggml_backend_buffer* b = staging ? p.dev_staging : p.dev_slots;
    ggml_tensor* t = p.t;
    t->buffer = b;
    t->data = ggml_backend_buffer_get_base(b);
    std::copy(p.home_ne, p.home_ne + 4, t->ne);
    std::copy(p.home_nb, p.home_nb + 4, t->nb);
    t->ne[p.dim] = staging ? experts_ : static_cast<int64_t>(L.dslots.size());
    for (int d = p.dim + 1; d < 4; d++) t->nb[d] = t->nb[d - 1] * static_cast<size_t>(t->ne[d - 1]);
  }
  L.dev_staged = staging;
}

// Which device slot or staging index each routed expert is computed at, and which of them must
// come through RAM first (returned): every one when the micro-batch is staged, else those no
// device slot holds, each given the coldest device slot that holds no expert of this batch.
std::vector<int> ExpertCache::DeviceAssignLocked(Layer& L, const std::vector<int>& need, const std::vector<char>& keep) {
  L.uploads.clear();
  if (need.size() > L.dslots.size()) {
    if (!L.projs[0].dev_staging) {
      if (counters_.error.empty()) counters_.error = "a micro-batch routed to more experts than the device's expert slots hold, and no device staging buffer was planned";
      return need;
    }
    for (int e : need) {
      L.dindex_of[e] = e;
      L.uploads.push_back({e, e});
    }
    return need;
  }
  std::vector<int> fetch;
  for (int e : need) {
    const int s = L.dslot_of[e];
    if (s < 0) {
      fetch.push_back(e);
      continue;
    }
    counters_.device_hits += 1;
    L.dslots[s].last_use = tick_;
    L.dindex_of[e] = s;
  }
  for (int e : fetch) {
    const int v = Coldest(L, L.dslots, keep);
    if (v < 0) break;  // cannot happen: the batch needs no more experts than there are slots
    Slot& d = L.dslots[v];
    if (d.expert >= 0) L.dslot_of[d.expert] = -1;
    d.expert = e;
    d.last_use = tick_;
    L.dslot_of[e] = v;
    L.dindex_of[e] = v;
    L.uploads.push_back({e, v});
  }
  return fetch;
}

// Before the layer's first expert op (its experts are in RAM by then): the uploads it waits for.
void ExpertCache::Upload(Layer& L) {
  if (L.uploads.empty()) return;
  double bytes = 0;
  for (const auto& [e, at] : L.uploads)
    for (auto& p : L.projs) {
      const int s = L.slot_of[e];
      const char* src = L.staged ? p.staging + static_cast<size_t>(e) * p.slice : s >= 0 ? p.cache + static_cast<size_t>(s) * p.slice : nullptr;
      if (!src) {
        std::lock_guard<std::mutex> l(mu_);
        if (counters_.error.empty()) counters_.error = "expert " + std::to_string(e) + " of layer " + std::to_string(L.index) + " is in no RAM slot to upload from";
        L.uploads.clear();
        return;
      }
      ggml_backend_tensor_set(p.t, src, static_cast<size_t>(at) * p.slice, p.slice);
      bytes += static_cast<double>(p.slice);
    }
  std::lock_guard<std::mutex> l(mu_);
  counters_.uploads += static_cast<double>(L.uploads.size());
  counters_.upload_bytes += bytes;
  L.uploads.clear();
}

// The selection's copy in device slot indices (FillSlotIds made its bytes): in device memory,
// where the device's expert ops read it.
void ExpertCache::DeviceSlotIds(Layer& L, ggml_tensor* c) {
  const size_t n = ggml_nbytes(c);
  if (!L.dev_ids || ggml_backend_buffer_get_size(L.dev_ids) < n) {
    if (L.dev_ids) ggml_backend_buffer_free(L.dev_ids);
    L.dev_ids = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(device_), std::max<size_t>(n, 4096));
    if (!L.dev_ids) {
      std::lock_guard<std::mutex> l(mu_);
      if (counters_.error.empty()) counters_.error = "cannot allocate the selection's copy on the device";
      return;
    }
  }
  c->buffer = L.dev_ids;
  c->data = ggml_backend_buffer_get_base(L.dev_ids);
  ggml_backend_tensor_set(c, L.slot_ids_bytes.data(), 0, n);
}

}  // namespace rf
