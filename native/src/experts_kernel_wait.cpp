// The expert cache's waits inside the expert products (experts.h): ggml's CPU MUL_MAT_ID asks,
// before it computes with each expert matrix, whether its bytes are in the slot yet (a patch of
// ours to ggml-cpu registers the question, native/patches/0004). The compute threads compute the
// experts the cache held first and wait only for those still being read, so a layer's misses,
// read once its router has chosen them, are read while the products of its hits run. Where the
// kernels are not ggml-cpu's plain ones (a device tier, repacked slots) or a micro-batch is
// staged, the expert op still waits for all of them before it starts (WaitReady).
#include <mutex>
#include <unordered_map>

#include "clock.h"
#include "experts.h"
#include "ggml-cpu.h"

namespace rf {

namespace {

// Which cache owns an expert tensor: the registered question is process-wide, and every
// MUL_MAT_ID of the process asks it (a tensor of no cache is always ready).
std::mutex g_owners_mu;
std::unordered_map<const ggml_tensor*, ExpertCache*>& Owners() {
  static auto* owners = new std::unordered_map<const ggml_tensor*, ExpertCache*>();
  return *owners;
}

bool AskOwner(const ggml_tensor* src0, int64_t expert, bool wait, void*) {
  ExpertCache* owner = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_owners_mu);
    auto it = Owners().find(src0);
    if (it != Owners().end()) owner = it->second;
  }
  return owner ? owner->KernelReady(src0, expert, wait) : true;
}

}  // namespace

void ExpertCache::RegisterKernelWait() {
  std::lock_guard<std::mutex> lock(g_owners_mu);
  for (const auto& L : layers_)
    for (const auto& p : L.projs) Owners()[p.t] = this;
  ggml_cpu_set_mul_mat_id_ready(&AskOwner, nullptr);
  kernel_wait_ = true;
}

void ExpertCache::UnregisterKernelWait() {
  std::lock_guard<std::mutex> lock(g_owners_mu);
  for (auto it = Owners().begin(); it != Owners().end();) {
    if (it->second == this) it = Owners().erase(it);
    else ++it;
  }
  // With no cache left (a later run without streaming in the same process), the kernels ask no
  // one: nothing to stream costs nothing.
  if (Owners().empty()) ggml_cpu_set_mul_mat_id_ready(nullptr, nullptr);
}

// Slot `slot` of the projection `w`: its bytes read (or no read of this micro-batch is for it).
// Wait time counts as a stall while at least one compute thread waits, once per layer's wait.
bool ExpertCache::KernelReady(const ggml_tensor* w, int64_t slot, bool wait) {
  int p = -1;
  const int li = LayerOfProj(w, &p);
  if (li < 0) return true;
  Layer& L = layers_[li];
  if (!L.kernel_wait) return true;
  const uint32_t bit = p >= 0 && p < 32 ? 1u << p : 0;
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] {
    if (stop_ || !counters_.error.empty()) return true;
    if (slot < 0 || slot >= static_cast<int64_t>(L.slots.size())) return true;
    const Slot& sl = L.slots[static_cast<size_t>(slot)];
    return sl.pending == 0 || (bit != 0 && (sl.done & bit) != 0);
  };
  if (ready()) return true;
  if (!wait) return false;
  if (kernel_waiters_++ == 0) kernel_wait_since_ = NowMs();
  waiting_++;
  ready_cv_.wait(lock, ready);
  waiting_--;
  if (--kernel_waiters_ > 0) return true;
  const double dur = NowMs() - kernel_wait_since_;
  counters_.stall_ms += dur;
  counters_.stalls++;
  lock.unlock();
  sink_(3, L.index, 0, dur);
  return true;
}

}  // namespace rf
