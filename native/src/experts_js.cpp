// experts_js.h: the expert cache's arguments and samples as they cross to and from JS.
#include "experts_js.h"

#include <climits>

#include "ggml.h"

namespace rf {

bool ParseExperts(const Napi::Value& v, size_t n_files, Args* args, ExpertConfig* out) {
  if (!v.IsObject()) return args->Fail("stream.experts must be an object");
  Napi::Object eo = v.As<Napi::Object>();
  if (!IsSafeInt(eo.Get("slotsPerLayer"), 1, 1 << 20)) return args->Fail("stream.experts.slotsPerLayer must be a positive integer");
  out->slots_per_layer = eo.Get("slotsPerLayer").As<Napi::Number>().Int32Value();
  if (eo.Has("staging") && !eo.Get("staging").IsUndefined()) {
    if (!eo.Get("staging").IsBoolean()) return args->Fail("stream.experts.staging must be true or false");
    out->staging = eo.Get("staging").As<Napi::Boolean>().Value();
  }
  if (eo.Has("repack") && !eo.Get("repack").IsUndefined()) {
    if (!eo.Get("repack").IsBoolean()) return args->Fail("stream.experts.repack must be true or false");
    out->repack = eo.Get("repack").As<Napi::Boolean>().Value();
  }
  if (eo.Has("predict") && !eo.Get("predict").IsUndefined()) {
    if (!eo.Get("predict").IsBoolean()) return args->Fail("stream.experts.predict must be true or false");
    out->predict = eo.Get("predict").As<Napi::Boolean>().Value();
  }
  if (eo.Has("evict") && !eo.Get("evict").IsUndefined()) {
    std::string ev = eo.Get("evict").IsString() ? eo.Get("evict").As<Napi::String>().Utf8Value() : "";
    if (ev != "lru" && ev != "lfu") return args->Fail("stream.experts.evict must be 'lru' or 'lfu'");
    out->lfu = ev == "lfu";
  }
  if (eo.Has("ioThreads") && !eo.Get("ioThreads").IsUndefined()) {
    if (!IsSafeInt(eo.Get("ioThreads"), 1, 8)) return args->Fail("stream.experts.ioThreads must be 1..8");
    out->io_threads = eo.Get("ioThreads").As<Napi::Number>().Int32Value();
  }
  if (eo.Has("skipBelow") && !eo.Get("skipBelow").IsUndefined()) {
    Napi::Value sv = eo.Get("skipBelow");
    double v = sv.IsNumber() ? sv.As<Napi::Number>().DoubleValue() : -1;
    if (!(v >= 0 && v < 1)) return args->Fail("stream.experts.skipBelow must be a number in [0, 1)");
    out->skip_below = static_cast<float>(v);
  }
  if (eo.Has("warm") && !eo.Get("warm").IsUndefined()) {
    const char* shape = "stream.experts.warm must be an array of { layer, experts: [expert ids] }";
    if (!eo.Get("warm").IsArray()) return args->Fail(shape);
    Napi::Array wa = eo.Get("warm").As<Napi::Array>();
    for (uint32_t i = 0; i < wa.Length(); i++) {
      Napi::Value wv = wa.Get(i);
      if (!wv.IsObject() || !IsSafeInt(wv.As<Napi::Object>().Get("layer"), 0, INT_MAX) || !wv.As<Napi::Object>().Get("experts").IsArray()) return args->Fail(shape);
      Napi::Array ex = wv.As<Napi::Object>().Get("experts").As<Napi::Array>();
      std::vector<int> ids;
      for (uint32_t k = 0; k < ex.Length(); k++) {
        if (!IsSafeInt(ex.Get(k), 0, 1 << 20)) return args->Fail(shape);
        ids.push_back(ex.Get(k).As<Napi::Number>().Int32Value());
      }
      out->warm.emplace_back(wv.As<Napi::Object>().Get("layer").As<Napi::Number>().Int32Value(), std::move(ids));
    }
  }
  if (eo.Has("device") && !eo.Get("device").IsUndefined()) {
    const char* shape = "stream.experts.device must be { name: a ggml device name, slotsPerLayer: a positive integer }";
    Napi::Value dv = eo.Get("device");
    if (!dv.IsObject() || !dv.As<Napi::Object>().Get("name").IsString() || !IsSafeInt(dv.As<Napi::Object>().Get("slotsPerLayer"), 1, 1 << 20)) return args->Fail(shape);
    out->device = dv.As<Napi::Object>().Get("name").As<Napi::String>().Utf8Value();
    out->device_slots = dv.As<Napi::Object>().Get("slotsPerLayer").As<Napi::Number>().Int32Value();
    if (out->device.empty()) return args->Fail(shape);
  }
  if (!eo.Get("tensors").IsArray()) return args->Fail("stream.experts.tensors must be an array of {name, layer, file, offset}");
  Napi::Array ta = eo.Get("tensors").As<Napi::Array>();
  for (uint32_t i = 0; i < ta.Length(); i++) {
    Napi::Value tv = ta.Get(i);
    if (!tv.IsObject()) return args->Fail("stream.experts.tensors must be an array of {name, layer, file, offset}");
    Napi::Object to = tv.As<Napi::Object>();
    if (!to.Get("name").IsString() || !IsSafeInt(to.Get("layer"), 0, INT_MAX) || !IsSafeInt(to.Get("file"), 0, static_cast<double>(n_files) - 1) ||
        !IsSafeInt(to.Get("offset"), 0, 9007199254740991.0))
      return args->Fail("stream.experts.tensors must be an array of {name, layer, file, offset}");
    ExpertTensorSpec ts;
    ts.name = to.Get("name").As<Napi::String>().Utf8Value();
    ts.layer = to.Get("layer").As<Napi::Number>().Int32Value();
    ts.file = to.Get("file").As<Napi::Number>().Int32Value();
    ts.file_offset = to.Get("offset").As<Napi::Number>().Int64Value();
    out->tensors.push_back(std::move(ts));
  }
  return true;
}

void CheckExpertOffsets(const ExpertConfig& experts, const std::unordered_map<std::string, ggml_tensor*>& tensors,
                        const std::vector<std::vector<Mapping>>& maps, Args* args) {
  for (const auto& es : experts.tensors) {
    auto it = tensors.find(es.name);
    if (it == tensors.end()) {
      args->Fail("stream.experts names an unknown tensor '" + es.name + "'");
      break;
    }
    uintptr_t a = reinterpret_cast<uintptr_t>(it->second->data);
    bool ok = false;
    for (const auto& m : maps[es.file])
      if (a >= m.start && a + ggml_nbytes(it->second) <= m.end && static_cast<int64_t>(a - m.start) + m.offset == es.file_offset) ok = true;
    if (!ok) args->Fail("expert tensor '" + es.name + "' is not at that offset of its file in the model's mapping");
  }
}

Napi::Object ExpertCountersObject(Napi::Env env, ExpertCache& ec) {
  ExpertCounters x = ec.counters();
  Napi::Object eo = Napi::Object::New(env);
  eo.Set("routed", x.routed);
  eo.Set("hits", x.hits);
  eo.Set("prefetchHits", x.prefetch_hits);
  eo.Set("loads", x.loads);
  eo.Set("prefetches", x.prefetches);
  eo.Set("readBytes", x.read_bytes);
  eo.Set("ioBusyMs", x.io_busy_ms);
  eo.Set("stallMs", x.stall_ms);
  eo.Set("stalls", x.stalls);
  eo.Set("predicted", x.predicted);
  eo.Set("predictedRight", x.predicted_right);
  eo.Set("staged", x.staged);
  eo.Set("promoted", x.promoted);
  eo.Set("prefetchDropped", x.prefetch_dropped);
  eo.Set("prefetchWastedBytes", x.prefetch_wasted_bytes);
  eo.Set("predictions", x.predictions);
  eo.Set("predictionsIssued", x.predictions_issued);
  eo.Set("slotBytes", x.slot_bytes);
  eo.Set("slotsPerLayer", x.slots_per_layer);
  eo.Set("layers", x.layers);
  eo.Set("experts", x.experts);
  eo.Set("readErrors", x.read_errors);
  eo.Set("directIo", x.direct_io);
  eo.Set("repackedProjections", x.repacked_projections);
  eo.Set("skipped", x.skipped);
  eo.Set("warmed", x.warmed);
  eo.Set("skippedWeight", x.skipped_weight);
  eo.Set("deviceHits", x.device_hits);
  eo.Set("uploads", x.uploads);
  eo.Set("uploadBytes", x.upload_bytes);
  eo.Set("deviceSlotBytes", x.device_slot_bytes);
  eo.Set("deviceSlotsPerLayer", x.device_slots_per_layer);
  if (!x.device.empty()) eo.Set("device", x.device);
  auto res = ec.Residents();
  Napi::Array ra = Napi::Array::New(env, res.size());
  for (size_t i = 0; i < res.size(); i++) {
    Napi::Object lo = Napi::Object::New(env);
    lo.Set("layer", res[i].layer);
    Napi::Array ex = Napi::Array::New(env, res[i].slots.size());
    for (size_t j = 0; j < res[i].slots.size(); j++) ex.Set(j, res[i].slots[j]);
    lo.Set("slots", ex);
    Napi::Array us = Napi::Array::New(env, res[i].uses.size());
    for (size_t j = 0; j < res[i].uses.size(); j++) us.Set(j, res[i].uses[j]);
    lo.Set("uses", us);
    if (!res[i].device_slots.empty()) {
      Napi::Array ds = Napi::Array::New(env, res[i].device_slots.size());
      for (size_t j = 0; j < res[i].device_slots.size(); j++) ds.Set(j, res[i].device_slots[j]);
      lo.Set("deviceSlots", ds);
    }
    ra.Set(i, lo);
  }
  eo.Set("resident", ra);
  return eo;
}

}  // namespace rf
