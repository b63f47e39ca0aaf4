// Page residency helpers shared by the addon's observers and the residency engine.
#pragma once
#include <cstddef>

namespace rf {

size_t PageSize();

// Bytes of [addr, addr + len) resident in RAM per mincore (page cache for file mappings), or
// -1 when the range is not mapped. addr must be page aligned.
double ResidentBytesIn(const void* addr, size_t len);

}  // namespace rf
