#include "pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <vector>

namespace rf {

size_t PageSize() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

double ResidentBytesIn(const void* addr, size_t len) {
  if (len == 0) return 0;
  const size_t page = PageSize();
  thread_local std::vector<unsigned char> vec;
  vec.resize((len + page - 1) / page);
  if (mincore(const_cast<void*>(addr), len, vec.data()) != 0) return -1;
  size_t n = 0;
  for (unsigned char c : vec) n += (c & 1);
  return static_cast<double>(n * page);
}

}  // namespace rf
