// The expert cache's selection operand (experts.h): the expert ops read a copy of the router's
// selection in slot indices, or, where they read a tensor derived from it, that tensor rewritten
// in place and its expert ids put back after the layer's last expert op.
#include <cstdio>

#include "experts.h"
#include "ggml.h"

namespace rf {

bool ExpertCache::PointSelection(Layer& L, ggml_tensor* op) {
  ggml_tensor*& sel = op->src[2];
  ggml_tensor* copy = L.slot_ids.get();
  if (L.staged) {
    // The staging buffer holds expert e at index e: the ops read expert ids.
    if (copy && sel == copy) sel = L.ids_source;
    return L.direct == 0;
  }
  if (L.direct != 0 && sel && L.topk && (sel == L.topk || sel == copy)) {
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
  for (int64_t j = 0; j < ids->ne[1]; j++)
    for (int64_t i = 0; i < ids->ne[0]; i++) {
      auto* v = reinterpret_cast<int32_t*>(static_cast<char*>(ids->data) + i * ids->nb[0] + j * ids->nb[1]);
      L.ids_experts.push_back(*v);
      if (*v >= 0 && *v < experts_ && L.index_of[*v] >= 0) *v = L.index_of[*v];
    }
}

// The expert ops' copy of the router's selection, in slot indices: the same shape and strides
// as the selection, in bytes of its own.
void ExpertCache::FillSlotIds(Layer& L) {
  const ggml_tensor* src = L.topk;
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
      if (v >= 0 && v < experts_ && L.index_of[v] >= 0) v = L.index_of[v];
      *reinterpret_cast<int32_t*>(static_cast<char*>(c->data) + at) = v;
    }
}

// The layer's expert ops are done: the selection holds the experts' ids again, so that a node
// after them that indexes by expert (a per-expert scale's get_rows) reads the right rows.
void ExpertCache::Restore(Layer& L) {
  if (!L.ids) return;
  size_t k = 0;
  for (int64_t j = 0; j < L.ids->ne[1]; j++)
    for (int64_t i = 0; i < L.ids->ne[0] && k < L.ids_experts.size(); i++)
      *reinterpret_cast<int32_t*>(static_cast<char*>(L.ids->data) + i * L.ids->nb[0] + j * L.ids->nb[1]) = L.ids_experts[k++];
  L.ids = nullptr;
}

}  // namespace rf
