// JS surface of the residency engine: ctx.residency(op, arg).
//   'configure' {policy, files, prefetchDepth, targetBytes, releaseOrder?, layers: [{index, tier,
//               ranges: [[addr, len, fileIndex, fileOffset], ...]}]}
//   'sample'    -> {layerResident: number[], events: [...], counters: {...}}
//   'drop' N    -> bytes dropped;  'prefetch' N -> bytes read ahead (synchronously)
#include "common.h"
#include "context.h"
#include "residency.h"

namespace rf {

namespace {
const char* kEventNames[] = {"prefetch", "drop", "late", "stall", "release"};
}

Napi::Value Context::ResidencyCall(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ctx_) {
    ThrowError(env, "FREED", "context has been freed");
    return env.Undefined();
  }
  if (!residency_) {
    ThrowError(env, "NO_RESIDENCY", "create the context with observeLayers: true to use the residency engine");
    return env.Undefined();
  }
  std::string op = info.Length() > 0 && info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "";
  if (op == "configure") {
    if (busy_.load()) {
      ThrowError(env, "BUSY", "cannot reconfigure residency while generating");
      return env.Undefined();
    }
    Napi::Object o = info[1].As<Napi::Object>();
    bool ok = false;
    Policy policy = PolicyFromString(o.Get("policy").ToString().Utf8Value(), &ok);
    if (!ok) {
      ThrowError(env, "BAD_ARGUMENT", "unknown policy");
      return env.Undefined();
    }
    std::vector<std::string> files;
    Napi::Array fa = o.Get("files").As<Napi::Array>();
    for (uint32_t i = 0; i < fa.Length(); i++) files.push_back(fa.Get(i).ToString().Utf8Value());
    std::vector<ResidencyLayer> layers;
    Napi::Array la = o.Get("layers").As<Napi::Array>();
    for (uint32_t i = 0; i < la.Length(); i++) {
      Napi::Object lo = la.Get(i).As<Napi::Object>();
      ResidencyLayer l;
      l.index = lo.Get("index").As<Napi::Number>().Int32Value();
      l.tier = lo.Get("tier").As<Napi::Number>().Int32Value();
      if (l.index != static_cast<int>(i)) {
        ThrowError(env, "BAD_ARGUMENT", "layers must be listed in index order from 0");
        return env.Undefined();
      }
      Napi::Array ra = lo.Get("ranges").As<Napi::Array>();
      for (uint32_t j = 0; j < ra.Length(); j++) {
        Napi::Array r = ra.Get(j).As<Napi::Array>();
        ResidencyRange rr;
        rr.addr = static_cast<uintptr_t>(r.Get(0u).As<Napi::Number>().Int64Value());
        rr.len = static_cast<size_t>(r.Get(1u).As<Napi::Number>().Int64Value());
        rr.file = r.Get(2u).As<Napi::Number>().Int32Value();
        rr.file_offset = r.Get(3u).As<Napi::Number>().Int64Value();
        if (rr.file >= static_cast<int>(files.size())) {
          ThrowError(env, "BAD_ARGUMENT", "range names a file that is not listed");
          return env.Undefined();
        }
        l.ranges.push_back(rr);
      }
      layers.push_back(std::move(l));
    }
    std::vector<int> order;
    if (o.Has("releaseOrder") && o.Get("releaseOrder").IsArray()) {
      Napi::Array ro = o.Get("releaseOrder").As<Napi::Array>();
      for (uint32_t i = 0; i < ro.Length(); i++) order.push_back(ro.Get(i).As<Napi::Number>().Int32Value());
    }
    int depth = o.Has("prefetchDepth") ? o.Get("prefetchDepth").As<Napi::Number>().Int32Value() : 4;
    double target = o.Has("targetBytes") ? o.Get("targetBytes").As<Napi::Number>().DoubleValue() : 0;
    std::string err = residency_->Configure(policy, std::move(layers), files, depth, static_cast<size_t>(target), std::move(order));
    if (!err.empty()) {
      ThrowError(env, "RESIDENCY_FAILED", err);
      return env.Undefined();
    }
    return env.Undefined();
  }
  if (op == "sample") {
    Napi::Object o = Napi::Object::New(env);
    auto res = residency_->ResidentBytes();
    Napi::Array lr = Napi::Array::New(env, res.size());
    for (size_t i = 0; i < res.size(); i++) lr.Set(i, res[i] < 0 ? env.Null() : Napi::Number::New(env, res[i]));
    o.Set("layerResident", lr);
    auto evs = residency_->TakeEvents();
    Napi::Array ea = Napi::Array::New(env, evs.size());
    for (size_t i = 0; i < evs.size(); i++) {
      Napi::Object e = Napi::Object::New(env);
      e.Set("tMs", evs[i].t_ms);
      e.Set("kind", kEventNames[evs[i].kind]);
      e.Set("layer", evs[i].layer);
      e.Set("bytes", evs[i].bytes);
      e.Set("durMs", evs[i].dur_ms);
      ea.Set(i, e);
    }
    o.Set("events", ea);
    auto c = residency_->counters();
    Napi::Object co = Napi::Object::New(env);
    co.Set("prefetchBytes", c.prefetch_bytes);
    co.Set("droppedBytes", c.dropped_bytes);
    co.Set("releasedBytes", c.released_bytes);
    co.Set("prefetches", c.prefetches);
    co.Set("prefetchHits", c.prefetch_hits);
    co.Set("late", c.late);
    co.Set("drops", c.drops);
    co.Set("stallMs", c.stall_ms);
    o.Set("counters", co);
    return o;
  }
  if (op == "trace-arm") {
    residency_->ArmTrace(static_cast<size_t>(info[1].As<Napi::Number>().Int64Value()));
    return env.Undefined();
  }
  if (op == "trace-take") {
    TraceResult tr = residency_->TakeTrace();
    Napi::Object o = Napi::Object::New(env);
    Napi::Array nodes = Napi::Array::New(env, tr.nodes.size());
    for (size_t i = 0; i < tr.nodes.size(); i++) {
      const auto& n = tr.nodes[i];
      Napi::Object no = Napi::Object::New(env);
      no.Set("name", n.name);
      no.Set("op", n.op);
      Napi::Array srcs = Napi::Array::New(env, n.srcs.size());
      for (size_t j = 0; j < n.srcs.size(); j++) srcs.Set(j, n.srcs[j]);
      no.Set("srcs", srcs);
      no.Set("bytes", n.bytes);
      no.Set("group", n.group);
      nodes.Set(i, no);
    }
    o.Set("nodes", nodes);
    o.Set("dropped", static_cast<double>(tr.dropped));
    o.Set("captured", tr.captured);
    return o;
  }
  if (op == "drop" || op == "prefetch") {
    if (busy_.load()) {
      ThrowError(env, "BUSY", "cannot drop or prefetch by hand while generating");
      return env.Undefined();
    }
    int layer = info[1].As<Napi::Number>().Int32Value();
    double b = op == "drop" ? residency_->DropLayer(layer, false) : residency_->PrefetchLayerSync(layer);
    return Napi::Number::New(env, b);
  }
  ThrowError(env, "BAD_ARGUMENT", "residency(op): op is configure | sample | drop | prefetch | trace-arm | trace-take");
  return env.Undefined();
}

}  // namespace rf
