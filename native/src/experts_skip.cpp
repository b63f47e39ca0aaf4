// The expert cache's lossy knob (experts.h, skip_below): the weight the router gave each expert
// a decoded token selected, read from the probabilities the selection was sorted from.
#include <cmath>

#include "experts.h"
#include "ggml-backend.h"
#include "ggml.h"

namespace rf {

namespace {

// The scores the selection ranked: the sort's input, through reshapes and views, and before a
// selection bias (DeepSeek V3's exp_probs_b shifts the choice, not the weights).
const ggml_tensor* RankedScores(const ggml_tensor* ids) {
  const ggml_tensor* sort = ids->view_src ? ids->view_src : ids;
  if (sort->op != GGML_OP_ARGSORT && sort->op != GGML_OP_TOP_K) return nullptr;
  const ggml_tensor* s = sort->src[0];
  while (s && (s->op == GGML_OP_RESHAPE || s->op == GGML_OP_VIEW)) s = s->src[0];
  if (s && s->op == GGML_OP_ADD && s->src[1] && s->src[1]->op == GGML_OP_NONE) s = s->src[0];
  return s;
}

// Probabilities (softmax, sigmoid, their roots) are shared out over the selected experts as the
// graph normalises them; raw router logits (gpt-oss, Llama 4) are softmaxed over them.
bool AreProbabilities(const ggml_tensor* s) {
  return s->op == GGML_OP_SOFT_MAX || s->op == GGML_OP_UNARY || s->op == GGML_OP_SQRT;
}

}  // namespace

std::vector<float> ExpertCache::TokenWeights(const ggml_tensor* ids) const {
  if (ids->ne[1] != 1 || ids->type != GGML_TYPE_I32) return {};
  const ggml_tensor* s = RankedScores(ids);
  if (!s || s->type != GGML_TYPE_F32 || s->ne[0] != experts_ || s->nb[0] != sizeof(float) || !s->data) return {};
  if (!s->buffer || !ggml_backend_buffer_is_host(s->buffer)) return {};
  const float* row = static_cast<const float*>(s->data);
  const bool probs = AreProbabilities(s);
  std::vector<int> sel;
  float top = -INFINITY;
  for (int64_t i = 0; i < ids->ne[0]; i++) {
    int e = *reinterpret_cast<const int32_t*>(static_cast<const char*>(ids->data) + i * ids->nb[0]);
    if (e < 0 || e >= experts_) return {};
    sel.push_back(e);
    top = std::max(top, row[e]);
  }
  double sum = 0;
  for (int e : sel) sum += probs ? row[e] : std::exp(row[e] - top);
  if (!(sum > 0)) return {};
  std::vector<float> w(experts_, 1.0f);
  for (int e : sel) w[e] = static_cast<float>((probs ? row[e] : std::exp(row[e] - top)) / sum);
  return w;
}

}  // namespace rf
