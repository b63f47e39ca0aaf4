// residency_args.h: the model's mappings and the integer check.
#include "residency_args.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rf {

std::vector<std::vector<Mapping>> MappingsOf(const std::vector<std::string>& files) {
  std::vector<std::string> real;
  for (const auto& f : files) {
    char* r = realpath(f.c_str(), nullptr);
    real.push_back(r ? std::string(r) : f);
    free(r);
  }
  std::vector<std::vector<Mapping>> out(files.size());
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, off, dev, inode;
    if (!(in >> range >> perms >> off >> dev >> inode)) continue;
    std::string path;
    std::getline(in, path);
    size_t b = path.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    path = path.substr(b);
    for (size_t i = 0; i < real.size(); i++) {
      if (path != real[i]) continue;
      size_t dash = range.find('-');
      Mapping m;
      m.start = std::stoull(range.substr(0, dash), nullptr, 16);
      m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
      m.offset = static_cast<int64_t>(std::stoull(off, nullptr, 16));
      out[i].push_back(m);
    }
  }
  return out;
}

bool IsSafeInt(const Napi::Value& v, double lo, double hi) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  return std::isfinite(d) && std::floor(d) == d && d >= lo && d <= hi;
}

}  // namespace rf
