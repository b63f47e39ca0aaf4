// Charging a new context's buffers to the memory cap at creation: the anonymous regions of
// the process before and after llama.cpp builds the context, and the new or grown ones faulted
// in for writing.
#pragma once
#include <cstdint>
#include <vector>

namespace rf {

struct MapRegion {
  uintptr_t start, end;
  bool candidate;  // private, writable, anonymous, not the heap, not a thread stack
};

// The process's mappings, from /proc/self/maps.
std::vector<MapRegion> MapRegions();

// Under a cap the context's buffers (compute buffer, caches) are charged at creation, not on the
// first long prompt: the plan is then made against what the run really holds, and a long
// prompt later cannot push the run against the cap. Faults in, for writing, every candidate
// region that is new or grew; MADV_POPULATE_WRITE never changes the contents of present pages.
double PrechargeSince(const std::vector<MapRegion>& before);

}  // namespace rf
