#include "pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace rf {

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

double ResidentBytesIn(const void* addr, size_t len) {
  if (len == 0) return 0;
  const size_t page = PageSize();
  // A bounded buffer, walked in steps: a huge length must not become a huge allocation.
  constexpr size_t kStepPages = 1 << 16;
  thread_local std::vector<unsigned char> vec(kStepPages);
  const char* p = static_cast<const char*>(addr);
  size_t pages = (len + page - 1) / page, n = 0;
  for (size_t done = 0; done < pages; done += kStepPages) {
    size_t k = std::min(kStepPages, pages - done);
    if (mincore(const_cast<char*>(p + done * page), k * page, vec.data()) != 0) return -1;
    for (size_t i = 0; i < k; i++) n += (vec[i] & 1);
  }
  return static_cast<double>(n * page);
}

}  // namespace rf
