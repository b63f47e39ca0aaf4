// Milliseconds on a monotonic clock, for every duration the addon measures.
#pragma once
#include <chrono>

namespace rf {

inline double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace rf
