// Time the decode thread waits on llama.cpp RPC nodes, per node. The scheduler asks the eval
// callback about each node of a split before it computes the split; a node whose output lives in
// an RPC node's buffer belongs to that node. From the first node asked of one owner to the first
// of another is that owner's time: sending its inputs, its compute, and the copy back that the
// next split starts with. Everything on this process (owner -1) is not counted.
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "ggml-backend.h"

namespace rf {

class RemoteWait {
 public:
  explicit RemoteWait(const std::vector<std::string>& endpoints);
  // From the eval callback (ask == true), on the decode thread.
  void See(const ggml_tensor* t);
  // A graph ended: an open segment is closed.
  void EndPass();
  // Milliseconds waited on each node since the context was made, in endpoint order.
  std::vector<double> WaitMs();

 private:
  void Switch(int owner);
  std::vector<ggml_backend_buffer_type_t> bufts_;
  int cur_ = -1;
  double start_ms_ = 0;
  std::mutex mu_;
  std::vector<double> wait_ms_;
};

}  // namespace rf
