// JS surface of the residency engine, one method per operation, every argument checked:
//   residencyConfigure({policy, files, targetBytes, releaseOrder?, layers, stream?})
//   residencySample() -> {layerResident, pinnedResident, events, counters}
//   residencyDrop(layer) -> bytes;  residencyPrefetch(layer) -> bytes (synchronous)
//   traceArm(maxEvents);  traceTake() -> {nodes, dropped, captured}
// Ranges are [address, length, fileIndex, fileOffset]; each must be page aligned and lie inside
// the model's own mapping of that file at that offset, so JS can never make the engine advise,
// lock or read memory that is not the model's.
#include <climits>
#include <cmath>
#include <cstdlib>

#include "common.h"
#include "context.h"
#include "ggml.h"
#include "model.h"
#include "pages.h"
#include "residency.h"
#include "residency_args.h"
#include "experts_js.h"
#include "llama_internal.h"

namespace rf {

namespace {

const char* kEventNames[] = {"prefetch", "drop", "late", "stall", "release"};

}  // namespace

bool Context::CheckResidency(Napi::Env env) {
  if (!ctx_) {
    ThrowError(env, "FREED", "context has been freed");
    return false;
  }
  if (!residency_) {
    ThrowError(env, "NO_RESIDENCY", "create the context with observeLayers: true to use the residency engine");
    return false;
  }
  return true;
}

namespace {

using Maps = std::vector<std::vector<Mapping>>;
using TensorMap = std::unordered_map<std::string, ggml_tensor*>;

// The files the model was loaded from, in the order ranges name them; false if not paths.
bool ParseFiles(const Napi::Object& o, std::vector<std::string>* files) {
  if (!o.Get("files").IsArray()) return false;
  Napi::Array fa = o.Get("files").As<Napi::Array>();
  for (uint32_t i = 0; i < fa.Length(); i++) {
    if (!fa.Get(i).IsString()) return false;
    files->push_back(fa.Get(i).As<Napi::String>().Utf8Value());
  }
  return true;
}

// Every layer in index order: its tier and its ranges.
void ParseLayers(Napi::Env env, const Napi::Object& o, Args* args, std::vector<ResidencyLayer>* layers) {
  if (!o.Get("layers").IsArray()) args->Fail("layers must be an array");
  Napi::Array la = o.Get("layers").IsArray() ? o.Get("layers").As<Napi::Array>() : Napi::Array::New(env);
  for (uint32_t i = 0; i < la.Length() && args->error.empty(); i++) {
    if (!la.Get(i).IsObject()) {
      args->Fail("each layer must be an object");
      break;
    }
    Napi::Object lo = la.Get(i).As<Napi::Object>();
    ResidencyLayer l;
    if (!IsSafeInt(lo.Get("index"), 0, INT_MAX) || lo.Get("index").As<Napi::Number>().Int32Value() != static_cast<int>(i)) {
      args->Fail("layers must be listed in index order from 0");
      break;
    }
    if (!IsSafeInt(lo.Get("tier"), 0, 2)) {
      args->Fail("a layer's tier is 0 (pinned), 1 (streamed) or 2 (vram)");
      break;
    }
    l.index = static_cast<int>(i);
    l.tier = lo.Get("tier").As<Napi::Number>().Int32Value();
    args->Ranges(lo.Get("ranges"), "layer " + std::to_string(i), &l.ranges);
    layers->push_back(std::move(l));
  }
}

void ParseReleaseOrder(const Napi::Object& o, size_t n_layers, Args* args, std::vector<int>* order) {
  if (!o.Has("releaseOrder") || o.Get("releaseOrder").IsUndefined()) return;
  if (!o.Get("releaseOrder").IsArray()) {
    args->Fail("releaseOrder must be an array of layer indices");
    return;
  }
  Napi::Array ro = o.Get("releaseOrder").As<Napi::Array>();
  for (uint32_t i = 0; i < ro.Length(); i++) {
    if (!IsSafeInt(ro.Get(i), 0, static_cast<double>(n_layers) - 1)) {
      args->Fail("releaseOrder names a layer that does not exist");
      break;
    }
    order->push_back(ro.Get(i).As<Napi::Number>().Int32Value());
  }
}

// One streamed unit: its layer, its file and its tensors' {name, offset, bytes}; false on the first error.
bool ParseStreamUnit(const Napi::Value& v, size_t n_files, Args* args, StreamUnitSpec* u) {
  if (!v.IsObject()) return args->Fail("each stream unit must be an object");
  Napi::Object uo = v.As<Napi::Object>();
  if (!IsSafeInt(uo.Get("layer"), -1, INT_MAX) || !IsSafeInt(uo.Get("file"), 0, static_cast<double>(n_files) - 1))
    return args->Fail("a stream unit needs an integer layer and the index of a listed file");
  u->layer = uo.Get("layer").As<Napi::Number>().Int32Value();
  u->file = uo.Get("file").As<Napi::Number>().Int32Value();
  if (!uo.Get("tensors").IsArray()) return args->Fail("a stream unit's tensors must be an array of {name, offset, bytes}");
  Napi::Array ta = uo.Get("tensors").As<Napi::Array>();
  for (uint32_t j = 0; j < ta.Length(); j++) {
    Napi::Value tv = ta.Get(j);
    if (!tv.IsObject() || !tv.As<Napi::Object>().Get("name").IsString() || !IsSafeInt(tv.As<Napi::Object>().Get("offset"), 0, 9007199254740991.0) ||
        !IsSafeInt(tv.As<Napi::Object>().Get("bytes"), 1, 9007199254740991.0)) {
      args->Fail("a stream unit's tensors must be an array of {name, offset, bytes}");
      break;
    }
    Napi::Object to = tv.As<Napi::Object>();
    StreamTensorSpec ts;
    ts.name = to.Get("name").As<Napi::String>().Utf8Value();
    ts.file_offset = to.Get("offset").As<Napi::Number>().Int64Value();
    ts.bytes = static_cast<size_t>(to.Get("bytes").As<Napi::Number>().Int64Value());
    u->tensors.push_back(std::move(ts));
  }
  return true;
}

// The stream plan: the window, the I/O threads and request size, direct or buffered reads, the
// units in order, the expert cache, the pinned and the rarely read ranges.
void ParseStream(Napi::Env env, const Napi::Object& so, size_t n_files, Args* args, StreamConfig* stream, ExpertConfig* experts) {
  if (!IsSafeInt(so.Get("windowBytes"), 0, 9007199254740991.0)) args->Fail("stream.windowBytes must be a non-negative integer");
  else stream->window_bytes = static_cast<size_t>(so.Get("windowBytes").As<Napi::Number>().Int64Value());
  if (so.Has("ioThreads") && !so.Get("ioThreads").IsUndefined()) {
    if (!IsSafeInt(so.Get("ioThreads"), 1, 8)) args->Fail("stream.ioThreads must be 1..8");
    else stream->io_threads = so.Get("ioThreads").As<Napi::Number>().Int32Value();
  }
  if (so.Has("ioChunkBytes") && !so.Get("ioChunkBytes").IsUndefined()) {
    if (!IsSafeInt(so.Get("ioChunkBytes"), 4096, 64.0 * 1024 * 1024)) args->Fail("stream.ioChunkBytes must be 4 KiB..64 MiB");
    else stream->io_chunk_bytes = static_cast<size_t>(so.Get("ioChunkBytes").As<Napi::Number>().Int64Value());
  }
  if (so.Has("directIo") && !so.Get("directIo").IsUndefined()) {
    if (!so.Get("directIo").IsBoolean()) args->Fail("stream.directIo must be a boolean");
    else stream->direct_io = so.Get("directIo").As<Napi::Boolean>().Value();
  }
  if (!so.Get("units").IsArray()) args->Fail("stream.units must be an array");
  Napi::Array ua = so.Get("units").IsArray() ? so.Get("units").As<Napi::Array>() : Napi::Array::New(env);
  for (uint32_t i = 0; i < ua.Length() && args->error.empty(); i++) {
    StreamUnitSpec u;
    if (!ParseStreamUnit(ua.Get(i), n_files, args, &u)) break;
    stream->units.push_back(std::move(u));
  }
  if (so.Has("experts") && !so.Get("experts").IsUndefined()) ParseExperts(so.Get("experts"), n_files, args, experts);
  if (so.Has("pinned")) args->Ranges(so.Get("pinned"), "stream.pinned", &stream->pinned);
  if (so.Has("random")) args->Ranges(so.Get("random"), "stream.random", &stream->random);
}

// A streamed tensor's file offset must be where the model's mapping really holds its data:
// the schedule reads those bytes from the file and points the tensor at them.
void CheckStreamOffsets(const StreamConfig& stream, const TensorMap& tensors, const Maps& maps, Args* args) {
  for (const auto& u : stream.units)
    for (const auto& ts : u.tensors) {
      auto it = tensors.find(ts.name);
      if (it == tensors.end()) {
        args->Fail("stream unit names an unknown tensor '" + ts.name + "'");
        break;
      }
      uintptr_t a = reinterpret_cast<uintptr_t>(it->second->data);
      bool ok = false;
      for (const auto& m : maps[u.file])
        if (a >= m.start && a + ts.bytes <= m.end && static_cast<int64_t>(a - m.start) + m.offset == ts.file_offset) ok = true;
      if (!ok) args->Fail("stream tensor '" + ts.name + "' is not at that offset of its file in the model's mapping");
    }
}

}  // namespace

Napi::Value Context::ResidencyConfigure(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckResidency(env)) return env.Undefined();
  if (busy_.load()) {
    ThrowError(env, "BUSY", "cannot reconfigure residency while generating");
    return env.Undefined();
  }
  if (info.Length() < 1 || !info[0].IsObject()) {
    ThrowError(env, "BAD_ARGUMENT", "residencyConfigure(config: object)");
    return env.Undefined();
  }
  Napi::Object o = info[0].As<Napi::Object>();
  bool ok = false;
  Policy policy = PolicyFromString(o.Get("policy").IsString() ? o.Get("policy").As<Napi::String>().Utf8Value() : "", &ok);
  if (!ok) {
    ThrowError(env, "BAD_ARGUMENT", "unknown policy");
    return env.Undefined();
  }
  std::vector<std::string> files;
  if (!ParseFiles(o, &files)) {
    ThrowError(env, "BAD_ARGUMENT", "files must be an array of paths");
    return env.Undefined();
  }
  auto maps = MappingsOf(files);
  Args args(env, maps);
  std::vector<ResidencyLayer> layers;
  ParseLayers(env, o, &args, &layers);
  std::vector<int> order;
  ParseReleaseOrder(o, layers.size(), &args, &order);
  double target = 0;
  if (o.Has("targetBytes") && !o.Get("targetBytes").IsUndefined()) {
    if (!IsSafeInt(o.Get("targetBytes"), 0, 9007199254740991.0)) args.Fail("targetBytes must be a non-negative integer");
    else target = o.Get("targetBytes").As<Napi::Number>().DoubleValue();
  }
  StreamConfig stream;
  ExpertConfig experts;
  if (o.Has("stream") && o.Get("stream").IsObject()) ParseStream(env, o.Get("stream").As<Napi::Object>(), files.size(), &args, &stream, &experts);
  else if (policy == Policy::Stream) args.Fail("the stream policy needs a stream plan (stream: {units, windowBytes, pinned})");
  if (!args.error.empty()) {
    ThrowError(env, "BAD_ARGUMENT", args.error);
    return env.Undefined();
  }
  TensorMap tensors;
  for (const auto& kv : llama_internal_get_tensor_map(model_->get())) tensors[kv.first] = kv.second;
  CheckStreamOffsets(stream, tensors, maps, &args);
  if (!args.error.empty()) {
    ThrowError(env, "BAD_ARGUMENT", args.error);
    return env.Undefined();
  }
  // An expert tensor's file offset must be where the model's mapping holds its data, as for
  // streamed tensors: the cache reads experts from the file at that offset.
  CheckExpertOffsets(experts, tensors, maps, &args);
  if (!args.error.empty()) {
    ThrowError(env, "BAD_ARGUMENT", args.error);
    return env.Undefined();
  }
  std::string err = residency_->Configure(policy, std::move(layers), files, static_cast<size_t>(target), std::move(order), std::move(stream), std::move(experts), tensors);
  if (!err.empty()) {
    ThrowError(env, "RESIDENCY_FAILED", err);
    return env.Undefined();
  }
  return env.Undefined();
}

Napi::Value Context::ResidencySample(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckResidency(env)) return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  auto res = residency_->ResidentBytes();
  Napi::Array lr = Napi::Array::New(env, res.size());
  for (size_t i = 0; i < res.size(); i++) lr.Set(i, res[i] < 0 ? env.Null() : Napi::Number::New(env, res[i]));
  o.Set("layerResident", lr);
  double pinned = residency_->PinnedResidentBytes();
  o.Set("pinnedResident", pinned < 0 ? env.Null() : Napi::Number::New(env, pinned));
  if (RemoteWait* rw = residency_->remote()) {
    auto ms = rw->WaitMs();
    Napi::Array wa = Napi::Array::New(env, ms.size());
    for (size_t i = 0; i < ms.size(); i++) wa.Set(i, ms[i]);
    o.Set("remoteWaitMs", wa);
  }
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
  auto s = residency_->stream_counters();
  Napi::Object co = Napi::Object::New(env);
  co.Set("prefetchBytes", s.read_bytes);
  co.Set("prefetches", s.reads);
  co.Set("prefetchMs", s.read_ms);
  co.Set("ioBusyMs", s.busy_ms);
  co.Set("prefetchHits", s.hits);
  co.Set("stalls", s.stalls);
  co.Set("late", s.late);
  co.Set("stallMs", s.stall_ms);
  co.Set("readErrors", s.read_errors);
  co.Set("splits", s.splits);
  co.Set("releases", s.releases);
  co.Set("windowBytes", s.slot_bytes);
  co.Set("windowSlots", s.slots);
  co.Set("directIo", s.direct_io);
  co.Set("droppedBytes", c.dropped_bytes);
  co.Set("drops", c.drops);
  co.Set("releasedBytes", c.released_bytes);
  co.Set("pinnedBytes", s.pinned_bytes);
  co.Set("pinnedLockedBytes", s.pinned_locked_bytes);
  co.Set("lockError", s.lock_error.empty() ? env.Null() : Napi::String::New(env, s.lock_error));
  o.Set("counters", co);
  if (ExpertCache* ec = residency_->experts()) o.Set("experts", ExpertCountersObject(env, *ec));
  return o;
}

Napi::Value Context::TraceArm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckResidency(env)) return env.Undefined();
  if (info.Length() < 1 || !IsSafeInt(info[0], 1, 10000000)) {
    ThrowError(env, "BAD_ARGUMENT", "traceArm(maxEvents: integer 1..10000000)");
    return env.Undefined();
  }
  residency_->ArmTrace(static_cast<size_t>(info[0].As<Napi::Number>().Int64Value()));
  return env.Undefined();
}

Napi::Value Context::TraceTake(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckResidency(env)) return env.Undefined();
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

Napi::Value Context::ResidencyDrop(const Napi::CallbackInfo& info) { return ResidencyLayerOp(info, true); }
Napi::Value Context::ResidencyPrefetch(const Napi::CallbackInfo& info) { return ResidencyLayerOp(info, false); }

Napi::Value Context::ResidencyLayerOp(const Napi::CallbackInfo& info, bool drop) {
  Napi::Env env = info.Env();
  if (!CheckResidency(env)) return env.Undefined();
  if (busy_.load()) {
    ThrowError(env, "BUSY", "cannot drop or prefetch by hand while generating");
    return env.Undefined();
  }
  if (info.Length() < 1 || !IsSafeInt(info[0], 0, INT_MAX) || info[0].As<Napi::Number>().Int32Value() >= residency_->layer_count()) {
    ThrowError(env, "BAD_ARGUMENT", std::string(drop ? "residencyDrop" : "residencyPrefetch") + "(layer): no such layer");
    return env.Undefined();
  }
  int layer = info[0].As<Napi::Number>().Int32Value();
  double b = drop ? residency_->DropLayer(layer, false) : residency_->PrefetchLayerSync(layer);
  return Napi::Number::New(env, b);
}

}  // namespace rf
