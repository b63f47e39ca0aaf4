// host_tensor.h: device tensors read and written through their backend.
#include "host_tensor.h"

#include "ggml-backend.h"

namespace rf {

bool IsHostTensor(const ggml_tensor* t) {
  const ggml_tensor* base = t->view_src ? t->view_src : t;
  return !base->buffer || ggml_backend_buffer_is_host(base->buffer);
}

const ggml_tensor* HostView(const ggml_tensor* t, HostCopy* copy) {
  if (IsHostTensor(t)) return t;
  const size_t n = ggml_nbytes(t);
  copy->bytes.resize(n);
  ggml_backend_tensor_get(t, copy->bytes.data(), 0, n);
  copy->t = *t;
  copy->t.data = copy->bytes.data();
  copy->t.buffer = nullptr;
  copy->t.view_src = nullptr;
  copy->t.view_offs = 0;
  return &copy->t;
}

void WriteBack(ggml_tensor* t, const HostCopy& copy) {
  if (IsHostTensor(t) || copy.bytes.size() != ggml_nbytes(t)) return;
  ggml_backend_tensor_set(t, copy.bytes.data(), 0, copy.bytes.size());
}

}  // namespace rf
