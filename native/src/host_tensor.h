// A tensor's bytes as the host can read and write them. Where a GPU computes a layer, the
// router's selection and its inputs live in device memory, whose `data` is not an address this
// process can dereference: they are copied to the host to be read, and written back through
// the backend.
#pragma once
#include <vector>

#include "ggml.h"

namespace rf {

struct HostCopy {
  ggml_tensor t{};
  std::vector<char> bytes;
};

// Whether `t`'s data is host memory (a CPU buffer, or no buffer at all: a tensor of ours).
bool IsHostTensor(const ggml_tensor* t);
// `t` itself when its data is host memory, else `copy` filled from the device (same shape and
// strides, data in copy->bytes).
const ggml_tensor* HostView(const ggml_tensor* t, HostCopy* copy);
// After a write through HostView's result: the bytes go back to the device (nothing to do when
// the view was the tensor itself).
void WriteBack(ggml_tensor* t, const HostCopy& copy);

}  // namespace rf
