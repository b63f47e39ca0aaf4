// A test-only addon (ramforge-test-seams.node, built beside the real one and never loaded by the
// app): the speculative decoder's draft-length chooser on passes a test describes, so that what
// it does with a given history (a slow pass, a draft never accepted) is checked exactly,
// without a clock. The production addon exports nothing for tests.
#include <napi.h>

#include "../src/draft_length.h"

namespace rf {
namespace {

void Fail(Napi::Env env, const std::string& message) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, "BAD_ARGUMENT"));
  e.ThrowAsJavaScriptException();
}

// draftLengthRun(min, max, passes, pass(k, i) -> {drafted, accepted, draftMs, verifyMs}) ->
// the k chosen for each pass. The chooser's logic on passes a caller describes, so that what it
// does with a given history (a slow pass, a draft never accepted) is checked without timing.
Napi::Value DraftLengthRun(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 4 || !info[0].IsNumber() || !info[1].IsNumber() || !info[2].IsNumber() || !info[3].IsFunction()) {
    Fail(env, "draftLengthRun(min, max, passes, pass: (k, i) => {drafted, accepted, draftMs, verifyMs})");
    return env.Undefined();
  }
  const int min = info[0].As<Napi::Number>().Int32Value(), max = info[1].As<Napi::Number>().Int32Value();
  const int n = info[2].As<Napi::Number>().Int32Value();
  if (min < 0 || max < min || max > 64 || n < 0 || n > 100000) {
    Fail(env, "draftLengthRun: 0 <= min <= max <= 64, 0 <= passes <= 100000");
    return env.Undefined();
  }
  Napi::Function fn = info[3].As<Napi::Function>();
  DraftLength chooser(min, max);
  Napi::Array ks = Napi::Array::New(env, static_cast<size_t>(n));
  for (int i = 0; i < n; i++) {
    const int k = chooser.next();
    ks.Set(static_cast<uint32_t>(i), Napi::Number::New(env, k));
    Napi::Value r = fn.Call({Napi::Number::New(env, k), Napi::Number::New(env, i)});
    if (env.IsExceptionPending()) return env.Undefined();
    if (!r.IsObject()) {
      Fail(env, "draftLengthRun: pass() returns {drafted, accepted, draftMs, verifyMs}");
      return env.Undefined();
    }
    Napi::Object o = r.As<Napi::Object>();
    SpecPass p;
    p.drafted = o.Get("drafted").ToNumber().Int32Value();
    p.accepted = o.Get("accepted").ToNumber().Int32Value();
    p.draft_ms = o.Get("draftMs").ToNumber().DoubleValue();
    p.verify_ms = o.Get("verifyMs").ToNumber().DoubleValue();
    if (env.IsExceptionPending()) return env.Undefined();
    if (p.drafted < 0 || p.drafted > k || p.accepted < 0 || p.accepted > p.drafted || !(p.draft_ms >= 0) || !(p.verify_ms >= 0)) {
      Fail(env, "draftLengthRun: a pass drafts 0..k, accepts 0..drafted, and takes a time >= 0");
      return env.Undefined();
    }
    chooser.observe(p);
  }
  return ks;
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("draftLengthRun", Napi::Function::New(env, DraftLengthRun));
  return exports;
}

}  // namespace rf

static Napi::Object InitSeams(Napi::Env env, Napi::Object exports) { return rf::Init(env, exports); }

NODE_API_MODULE(ramforge_test_seams, InitSeams)
