// The expert cache's slots in the layout ggml's CPU kernels are fastest on (experts.h). Weights
// llama.cpp holds in RAM are repacked at load (rows interleaved in groups of 4 or 8, so one pass
// of the kernel reads several rows); weights the expert cache reads into its slots were not, and
// a token's products ran 1.5–1.8× slower than the same model held in RAM. A tensor is computed
// in the repacked layout when its buffer is of ggml-cpu's CPU_REPACK type and its `extra` names
// the layout, so each repackable expert tensor is marked so, and each slice is repacked in place
// after its read: a group of rows occupies the same bytes before and after. Opt-in (`--repack`):
// repacked and plain kernels round differently, and a run under a cap otherwise computes exactly
// as plain llama.cpp does under the same cap.
#include <cstring>

#include "experts.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace rf {

namespace {

ggml_backend_buffer_type_t RepackBufferType() {
  ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
  if (!cpu) return nullptr;
  auto extra = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
      ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(cpu), "ggml_backend_dev_get_extra_bufts"));
  if (!extra) return nullptr;
  for (ggml_backend_buffer_type_t* b = extra(cpu); b && *b; ++b)
    if (std::strcmp(ggml_backend_buft_name(*b), "CPU_REPACK") == 0) return *b;
  return nullptr;
}

}  // namespace

void ExpertCache::SetUpRepack() {
  ggml_backend_buffer_type_t buft = cfg_.repack ? RepackBufferType() : nullptr;
  if (!buft) return;
  // The buffer only marks tensors: their bytes stay in the slots.
  repack_buffer_ = ggml_backend_buft_alloc_buffer(buft, 64);
  if (!repack_buffer_) return;
  ggml_backend_buffer_set_usage(repack_buffer_, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
  for (auto& L : layers_)
    for (auto& p : L.projs) {
      ggml_tensor* t = p.t;
      // Expert matrices only (MUL_MAT_ID's weights), in whole blocks of every type's rows.
      if (ggml_n_dims(t) != 3 || t->ne[0] % 256 != 0) continue;
      const int64_t rows = t->ne[1] % 8 == 0 ? 8 : t->ne[1] % 4 == 0 ? 4 : 0;
      if (rows == 0) continue;
      auto g = std::make_shared<ggml_tensor>(*t);
      g->ne[1] = rows;
      g->ne[2] = 1;
      g->nb[2] = g->nb[1] * rows;
      g->nb[3] = g->nb[2];
      g->view_src = nullptr;
      g->view_offs = 0;
      g->extra = nullptr;
      g->buffer = repack_buffer_;
      if (ggml_backend_buffer_init_tensor(repack_buffer_, g.get()) != GGML_STATUS_SUCCESS || !g->extra) continue;
      p.original_buffer = t->buffer;
      p.original_extra = t->extra;
      t->buffer = repack_buffer_;
      t->extra = nullptr;
      // The group's layout must be the one the kernels will read the whole tensor in.
      if (ggml_backend_buffer_init_tensor(repack_buffer_, t) != GGML_STATUS_SUCCESS || t->extra != g->extra) {
        t->buffer = p.original_buffer;
        t->extra = p.original_extra;
        continue;
      }
      p.group = std::move(g);
      p.group_bytes = p.group->nb[2];
      counters_.repacked_projections++;
    }
}

void ExpertCache::Repack(const Proj& p, char* slice, std::vector<char>& scratch) const {
  if (!p.group) return;
  if (scratch.size() < p.group_bytes) scratch.resize(p.group_bytes);
  ggml_tensor g = *p.group;
  for (size_t at = 0; at + p.group_bytes <= p.slice; at += p.group_bytes) {
    std::memcpy(scratch.data(), slice + at, p.group_bytes);
    g.data = slice + at;
    ggml_backend_tensor_set(&g, scratch.data(), 0, p.group_bytes);
  }
}

void ExpertCache::RestoreTensors() {
  for (auto& L : layers_)
    for (auto& p : L.projs) {
      p.t->data = p.original;
      if (p.group) {
        p.t->buffer = p.original_buffer;
        p.t->extra = p.original_extra;
      }
    }
  if (repack_buffer_) ggml_backend_buffer_free(repack_buffer_);
  repack_buffer_ = nullptr;
  FreeDevice();
}

}  // namespace rf
