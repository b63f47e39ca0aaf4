// createContext's residency options (the engine, its eval callback, RPC nodes' waits, the
// routing tap of routing.h) and routingTake(), what the tap recorded since the last take.
#include <climits>
#include <cstring>

#include "common.h"
#include "context.h"
#include "residency.h"
#include "residency_args.h"
#include "routing_js.h"

namespace rf {

namespace {

bool Ids(const Napi::Value& v, std::vector<int32_t>* out) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) return false;
  Napi::Int32Array a = v.As<Napi::Int32Array>();
  out->assign(a.Data(), a.Data() + a.ElementLength());
  return true;
}

}  // namespace

// {moeLayers: number[], experts, used, record?, recordWeights?, replay?: {promptSteps, decodeSteps, prompt: Int32Array, decode: Int32Array}}
std::string ParseRouting(const Napi::Value& v, RouteConfig* out) {
  const std::string shape = "routing must be {moeLayers, experts, used, record?, recordWeights?, replay?}";
  if (!v.IsObject()) return shape;
  Napi::Object o = v.As<Napi::Object>();
  if (!o.Get("moeLayers").IsArray() || !IsSafeInt(o.Get("experts"), 1, 1 << 16) || !IsSafeInt(o.Get("used"), 1, 1 << 16)) return shape;
  Napi::Array layers = o.Get("moeLayers").As<Napi::Array>();
  for (uint32_t i = 0; i < layers.Length(); i++) {
    if (!IsSafeInt(layers.Get(i), 0, INT_MAX)) return "routing.moeLayers must hold layer indices";
    out->moe_layers.push_back(layers.Get(i).As<Napi::Number>().Int32Value());
  }
  out->experts = o.Get("experts").As<Napi::Number>().Int32Value();
  out->used = o.Get("used").As<Napi::Number>().Int32Value();
  out->record = !o.Has("record") || o.Get("record").ToBoolean().Value();
  out->record_weights = o.Has("recordWeights") && o.Get("recordWeights").ToBoolean().Value();
  if (o.Has("replay") && !o.Get("replay").IsUndefined()) {
    if (!o.Get("replay").IsObject()) return "routing.replay must be {promptSteps, decodeSteps, prompt, decode}";
    Napi::Object r = o.Get("replay").As<Napi::Object>();
    if (!IsSafeInt(r.Get("promptSteps"), 0, INT_MAX) || !IsSafeInt(r.Get("decodeSteps"), 0, INT_MAX) || !Ids(r.Get("prompt"), &out->trace.prompt) ||
        !Ids(r.Get("decode"), &out->trace.decode))
      return "routing.replay must be {promptSteps, decodeSteps, prompt: Int32Array, decode: Int32Array}";
    out->trace.prompt_steps = r.Get("promptSteps").As<Napi::Number>().Int32Value();
    out->trace.decode_steps = r.Get("decodeSteps").As<Napi::Number>().Int32Value();
    out->replay = true;
  }
  return "";
}

std::unique_ptr<Residency> MakeResidency(const Napi::Object& opts, bool* callback, std::string* err) {
  const bool routing = opts.Has("routing") && !opts.Get("routing").IsUndefined();
  *callback = false;
  if (!routing && !(opts.Has("observeLayers") && opts.Get("observeLayers").ToBoolean().Value())) return nullptr;
  auto residency = std::make_unique<Residency>();
  // The eval callback splits the graph at every layer boundary; only the stream schedule
  // and the graph trace need it, so a run that streams nothing does not pay for it.
  *callback = !opts.Has("layerCallback") || opts.Get("layerCallback").ToBoolean().Value();
  // Layers on RPC nodes: the callback times the waits on each (it asks for no node itself).
  if (opts.Has("remoteNodes") && opts.Get("remoteNodes").IsArray()) {
    Napi::Array a = opts.Get("remoteNodes").As<Napi::Array>();
    std::vector<std::string> eps;
    for (uint32_t i = 0; i < a.Length(); i++)
      if (a.Get(i).IsString()) eps.push_back(a.Get(i).As<Napi::String>().Utf8Value());
    if (!eps.empty()) {
      residency->WatchRemote(eps);
      *callback = true;
    }
  }
  if (opts.Has("guardNewBatchSizes") && opts.Get("guardNewBatchSizes").ToBoolean().Value()) {
    residency->GuardNewBatchSizes(true);
    *callback = true;
  }
  // The routing tap (an MoE's routing recorded or replayed) sees each router's selection.
  if (routing) {
    RouteConfig rc;
    *err = ParseRouting(opts.Get("routing"), &rc);
    if (err->empty()) *err = residency->ConfigureRouting(std::move(rc));
    *callback = true;
  }
  return residency;
}

Napi::Value Context::RoutingActive(const Napi::CallbackInfo& info) {
  RouteTap* tap = residency_ ? residency_->routing() : nullptr;
  if (tap && info.Length() > 0) tap->SetActive(info[0].ToBoolean().Value());
  return info.Env().Undefined();
}

Napi::Value Context::RoutingTake(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  RouteTap* tap = residency_ ? residency_->routing() : nullptr;
  if (!tap) return env.Null();
  RouteTaken t = tap->Take();
  Napi::Object o = Napi::Object::New(env);
  Napi::Int32Array sel = Napi::Int32Array::New(env, t.selections.size());
  if (!t.selections.empty()) std::memcpy(sel.Data(), t.selections.data(), t.selections.size() * sizeof(int32_t));
  Napi::Int32Array ids = Napi::Int32Array::New(env, t.ids.size());
  if (!t.ids.empty()) std::memcpy(ids.Data(), t.ids.data(), t.ids.size() * sizeof(int32_t));
  Napi::Float32Array w = Napi::Float32Array::New(env, t.weights.size());
  if (!t.weights.empty()) std::memcpy(w.Data(), t.weights.data(), t.weights.size() * sizeof(float));
  o.Set("selections", sel);
  o.Set("ids", ids);
  o.Set("weights", w);
  o.Set("replacedTokens", t.replaced_tokens);
  o.Set("promptWraps", t.prompt_wraps);
  o.Set("decodeWraps", t.decode_wraps);
  o.Set("droppedIds", t.dropped_ids);
  return o;
}

}  // namespace rf
