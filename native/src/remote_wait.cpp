#include "remote_wait.h"

#include <chrono>

#include "ggml-rpc.h"
#include "ggml.h"

namespace rf {
namespace {

double NowMs() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

RemoteWait::RemoteWait(const std::vector<std::string>& endpoints) : wait_ms_(endpoints.size(), 0.0) {
  // The same buffer types the model's RPC devices hand out (ggml keeps one per endpoint).
  for (const auto& ep : endpoints) bufts_.push_back(ggml_backend_rpc_buffer_type(ep.c_str(), 0));
}

void RemoteWait::See(const ggml_tensor* t) {
  // A view's buffer is its source's; a tensor not yet allocated says nothing.
  const ggml_tensor* base = t->view_src ? t->view_src : t;
  if (!base->buffer) return;
  ggml_backend_buffer_type_t bt = ggml_backend_buffer_get_type(base->buffer);
  int owner = -1;
  for (size_t i = 0; i < bufts_.size(); i++)
    if (bufts_[i] == bt) owner = static_cast<int>(i);
  if (owner != cur_) Switch(owner);
}

void RemoteWait::Switch(int owner) {
  double now = NowMs();
  if (cur_ >= 0) {
    std::lock_guard<std::mutex> lock(mu_);
    wait_ms_[cur_] += now - start_ms_;
  }
  cur_ = owner;
  start_ms_ = now;
}

void RemoteWait::EndPass() {
  if (cur_ >= 0) Switch(-1);
}

std::vector<double> RemoteWait::WaitMs() {
  std::lock_guard<std::mutex> lock(mu_);
  return wait_ms_;
}

}  // namespace rf
