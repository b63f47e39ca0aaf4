// What the residency engine's JS surface checks its arguments with: the model's own mappings
// of its files (so no range names memory that is not the model's), bounded integers, and the
// first error of a whole argument object.
#pragma once
#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pages.h"
#include "stream.h"

namespace rf {

struct Mapping {
  uintptr_t start, end;
  int64_t offset;
};

// The model's mappings of each file, from /proc/self/maps (matched by real path).
std::vector<std::vector<Mapping>> MappingsOf(const std::vector<std::string>& files);

// An integer-valued number in [lo, hi].
bool IsSafeInt(const Napi::Value& v, double lo, double hi);

// Collects the first error while every field of an argument object is checked.
class Args {
 public:
  Args(Napi::Env env, const std::vector<std::vector<Mapping>>& maps) : env_(env), maps_(maps) {}
  std::string error;

  bool Range(const Napi::Value& v, const std::string& what, MappedRange* out) {
    if (!v.IsArray() || v.As<Napi::Array>().Length() != 4) return Fail(what + ": a range is [address, length, fileIndex, fileOffset]");
    Napi::Array a = v.As<Napi::Array>();
    const double kMax = 9007199254740991.0;
    for (uint32_t i = 0; i < 4; i++)
      if (!IsSafeInt(a.Get(i), 0, kMax)) return Fail(what + ": range fields must be non-negative integers");
    out->addr = static_cast<uintptr_t>(a.Get(0u).As<Napi::Number>().Int64Value());
    out->len = static_cast<size_t>(a.Get(1u).As<Napi::Number>().Int64Value());
    out->file = a.Get(2u).As<Napi::Number>().Int32Value();
    out->file_offset = a.Get(3u).As<Napi::Number>().Int64Value();
    const size_t page = PageSize();
    if (out->len == 0 || out->addr % page || out->len % page || out->file_offset % static_cast<int64_t>(page))
      return Fail(what + ": ranges must be non-empty and page aligned");
    if (out->file < 0 || out->file >= static_cast<int>(maps_.size())) return Fail(what + ": range names a file that is not listed");
    for (const auto& m : maps_[out->file]) {
      if (out->addr >= m.start && out->addr + out->len <= m.end &&
          static_cast<int64_t>(out->addr - m.start) + m.offset == out->file_offset)
        return true;
    }
    return Fail(what + ": range does not lie inside the model's mapping of its file");
  }

  bool Ranges(const Napi::Value& v, const std::string& what, std::vector<MappedRange>* out) {
    if (!v.IsArray()) return Fail(what + " must be an array of ranges");
    Napi::Array a = v.As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) {
      MappedRange r;
      if (!Range(a.Get(i), what, &r)) return false;
      out->push_back(r);
    }
    return true;
  }

  bool Fail(const std::string& m) {
    if (error.empty()) error = m;
    return false;
  }

 private:
  Napi::Env env_;
  const std::vector<std::vector<Mapping>>& maps_;
};


}  // namespace rf
