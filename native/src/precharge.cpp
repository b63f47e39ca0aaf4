#include "precharge.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>

namespace rf {

std::vector<MapRegion> MapRegions() {
  std::vector<MapRegion> out;
  FILE* f = fopen("/proc/self/maps", "r");
  if (!f) return out;
  char line[512];
  uintptr_t prev_guard_end = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b, off, inode;
    char perms[8] = {0}, dev[16] = {0}, path[256] = {0};
    int n = sscanf(line, "%lx-%lx %7s %lx %15s %lu %255s", &a, &b, perms, &off, dev, &inode, path);
    if (n < 6) continue;
    bool anon = inode == 0 && n == 6;
    bool guard = anon && perms[0] == '-' && perms[1] == '-';
    // A thread's stack sits right above its guard page: not ours to charge.
    bool stack = prev_guard_end == a;
    out.push_back({a, b, anon && perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && !stack});
    prev_guard_end = guard ? b : 0;
  }
  fclose(f);
  return out;
}

double PrechargeSince(const std::vector<MapRegion>& before) {
  double total = 0;
  for (const auto& r : MapRegions()) {
    if (!r.candidate) continue;
    uintptr_t from = r.start;
    for (const auto& b : before)
      if (b.start == r.start) from = std::max(from, b.end);
    if (from >= r.end) continue;
    if (madvise(reinterpret_cast<void*>(from), r.end - from, 23 /* MADV_POPULATE_WRITE */) == 0) total += static_cast<double>(r.end - from);
  }
  return total;
}

}  // namespace rf
