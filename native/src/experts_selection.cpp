// The expert cache's selection operand (experts.h): the expert ops read a copy of the router's
// selection in slot indices, or, where they read a tensor derived from it, that tensor rewritten
// in place and its expert ids put back after the layer's last expert op.
#include <cstdio>

#include "experts.h"
#include "ggml.h"
#include "host_tensor.h"

namespace rf {

bool ExpertCache::PointSelection(Layer& L, ggml_tensor* op) {
  ggml_tensor*& sel = op->src[2];
  ggml_tensor* copy = L.slot_ids.get();
  if (device_ ? L.dev_staged : L.staged) {
    // The staging buffer holds expert e at index e: the ops read expert ids.
    if (copy && sel == copy) sel = L.ids_source;
    return L.direct == 0;
  }
  if (L.direct != 0 && sel && L.topk_node && (sel == L.topk_node || sel == copy)) {
    if (L.rewrite) {
      FillSlotIds(L);
      L.rewrite = false;
    }
    L.direct = 1;
    if (sel != L.slot_ids.get()) {
      L.ids_source = sel;
      sel = L.slot_ids.get();
    }
    return false;
  }
  L.direct = 0;
  if (L.rewrite) {
    Rewrite(L, sel);
    L.rewrite = false;
  }
  return true;
}

void ExpertCache::Rewrite(Layer& L, ggml_tensor* ids) {
  if (!ids || ids->type != GGML_TYPE_I32) return;
  L.ids = ids;
  L.ids_experts.clear();
  const std::vector<int>& index_of = device_ ? L.dindex_of : L.index_of;
  HostCopy copy;
  const ggml_tensor* h = HostView(ids, &copy);
  for (int64_t j = 0; j < h->ne[1]; j++)
    for (int64_t i = 0; i < h->ne[0]; i++) {
      auto* v = reinterpret_cast<int32_t*>(static_cast<char*>(h->data) + i * h->nb[0] + j * h->nb[1]);
      L.ids_experts.push_back(*v);
      if (*v >= 0 && *v < experts_ && index_of[*v] >= 0) *v = index_of[*v];
    }
  WriteBack(ids, copy);
}

// The expert ops' copy of the router's selection, in slot indices: the same shape and strides
// as the selection, in bytes of its own.
void ExpertCache::FillSlotIds(Layer& L) {
  const ggml_tensor* src = L.topk;
  const std::vector<int>& index_of = device_ ? L.dindex_of : L.index_of;
  if (!L.slot_ids) L.slot_ids = std::make_shared<ggml_tensor>();
  ggml_tensor* c = L.slot_ids.get();
  *c = *src;
  L.slot_ids_bytes.resize(ggml_nbytes(src) / sizeof(int32_t) + 1);
  c->data = L.slot_ids_bytes.data();
  c->view_src = nullptr;
  c->view_offs = 0;
  std::snprintf(c->name, sizeof(c->name), "ffn_moe_slots-%d", L.index);
  for (int64_t j = 0; j < src->ne[1]; j++)
    for (int64_t i = 0; i < src->ne[0]; i++) {
      const size_t at = static_cast<size_t>(i * src->nb[0] + j * src->nb[1]);
      int32_t v = *reinterpret_cast<const int32_t*>(static_cast<const char*>(src->data) + at);
      if (v >= 0 && v < experts_ && index_of[v] >= 0) v = index_of[v];
      *reinterpret_cast<int32_t*>(static_cast<char*>(c->data) + at) = v;
    }
  if (device_) DeviceSlotIds(L, c);
}

// The layer's expert ops are done: the selection holds the experts' ids again, so that a node
// after them that indexes by expert (a per-expert scale's get_rows) reads the right rows.
void ExpertCache::Restore(Layer& L) {
  if (!L.ids) return;
  HostCopy copy;
  const ggml_tensor* h = HostView(L.ids, &copy);
  size_t k = 0;
  for (int64_t j = 0; j < h->ne[1]; j++)
    for (int64_t i = 0; i < h->ne[0] && k < L.ids_experts.size(); i++)
      *reinterpret_cast<int32_t*>(static_cast<char*>(h->data) + i * h->nb[0] + j * h->nb[1]) = L.ids_experts[k++];
  WriteBack(L.ids, copy);
  L.ids = nullptr;
}

}  // namespace rf
