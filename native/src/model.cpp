#include "model.h"

#include <cstring>

#include "common.h"
#include "context.h"
#include "ggml.h"

namespace rf {

Napi::FunctionReference Model::constructor_;

void Model::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function fn = DefineClass(env, "Model",
                                  {
                                      InstanceMethod("info", &Model::Info),
                                      InstanceMethod("tokenize", &Model::Tokenize),
                                      InstanceMethod("tokenToPiece", &Model::TokenToPiece),
                                      InstanceMethod("detokenize", &Model::Detokenize),
                                      InstanceMethod("isEog", &Model::IsEog),
                                      InstanceMethod("applyChatTemplate", &Model::ApplyChatTemplate),
                                      InstanceMethod("createContext", &Model::CreateContext),
                                      InstanceMethod("tensors", &Model::Tensors),
                                      InstanceMethod("free", &Model::Free),
                                  });
  constructor_ = Napi::Persistent(fn);
  constructor_.SuppressDestruct();
  exports.Set("Model", fn);
}

Napi::Object Model::Wrap(Napi::Env env, llama_model* model, std::vector<std::string> paths, double loadMs,
                         std::vector<std::pair<std::string, std::string>> overrides) {
  Napi::Object obj = constructor_.New({Napi::External<llama_model>::New(env, model)});
  Model* m = Model::Unwrap(obj);
  m->paths_ = std::move(paths);
  m->load_ms_ = loadMs;
  m->overrides_ = std::move(overrides);
  return obj;
}

Model::Model(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Model>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    ThrowError(info.Env(), "BAD_ARGUMENT", "Model cannot be constructed directly; use loadModel()");
    return;
  }
  model_ = info[0].As<Napi::External<llama_model>>().Data();
  owner_ = std::shared_ptr<llama_model>(model_, llama_model_free);
}

// Drops this handle's share only: a context that outlives its model wrapper (finalizers run in
// any order) still holds the weights, and the last one to go frees them.
Model::~Model() = default;

bool Model::CheckAlive(Napi::Env env) const {
  if (model_) return true;
  ThrowError(env, "FREED", "model has been freed");
  return false;
}

static std::string MetaValue(const llama_model* m, int i) {
  int n = llama_model_meta_val_str_by_index(m, i, nullptr, 0);
  if (n < 0) return "";
  std::string s(static_cast<size_t>(n) + 1, '\0');
  llama_model_meta_val_str_by_index(m, i, s.data(), s.size());
  s.resize(static_cast<size_t>(n));
  return s;
}

Napi::Value Model::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  Napi::Object o = Napi::Object::New(env);
  char desc[256];
  llama_model_desc(model_, desc, sizeof desc);
  o.Set("description", desc);
  o.Set("nParams", Napi::Number::New(env, static_cast<double>(llama_model_n_params(model_))));
  o.Set("sizeBytes", Napi::Number::New(env, static_cast<double>(llama_model_size(model_))));
  o.Set("nLayers", llama_model_n_layer(model_));
  o.Set("nCtxTrain", llama_model_n_ctx_train(model_));
  o.Set("nEmbd", llama_model_n_embd(model_));
  o.Set("nHead", llama_model_n_head(model_));
  o.Set("nHeadKv", llama_model_n_head_kv(model_));
  o.Set("nVocab", llama_vocab_n_tokens(vocab()));
  o.Set("bos", llama_vocab_bos(vocab()));
  o.Set("eos", llama_vocab_eos(vocab()));
  o.Set("addBos", llama_vocab_get_add_bos(vocab()));
  // Fill-in-the-middle tokens (-1: the vocabulary has none), as llama-server's /infill uses them.
  Napi::Object fim = Napi::Object::New(env);
  fim.Set("pre", llama_vocab_fim_pre(vocab()));
  fim.Set("suf", llama_vocab_fim_suf(vocab()));
  fim.Set("mid", llama_vocab_fim_mid(vocab()));
  fim.Set("rep", llama_vocab_fim_rep(vocab()));
  fim.Set("sep", llama_vocab_fim_sep(vocab()));
  o.Set("fim", fim);
  o.Set("loadMs", load_ms_);
  const char* tmpl = llama_model_chat_template(model_, nullptr);
  o.Set("chatTemplate", tmpl ? Napi::Value(Napi::String::New(env, tmpl)) : env.Null());
  Napi::Object meta = Napi::Object::New(env);
  int n = llama_model_meta_count(model_);
  for (int i = 0; i < n; i++) {
    char key[512];
    if (llama_model_meta_key_by_index(model_, i, key, sizeof key) < 0) continue;
    meta.Set(key, MetaValue(model_, i));
  }
  // What the model was loaded with, not what the file says (an override's key is in the file).
  for (const auto& [k, v] : overrides_) meta.Set(k, v);
  o.Set("metadata", meta);
  Napi::Array paths = Napi::Array::New(env, paths_.size());
  for (size_t i = 0; i < paths_.size(); i++) paths.Set(i, paths_[i]);
  o.Set("paths", paths);
  return o;
}

Napi::Value Model::Tokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsString()) {
    ThrowError(env, "BAD_ARGUMENT", "tokenize(text: string, addSpecial?: boolean, parseSpecial?: boolean)");
    return env.Undefined();
  }
  std::string text = info[0].As<Napi::String>().Utf8Value();
  bool add_special = info.Length() > 1 && info[1].IsBoolean() ? info[1].As<Napi::Boolean>().Value() : true;
  bool parse_special = info.Length() > 2 && info[2].IsBoolean() ? info[2].As<Napi::Boolean>().Value() : false;
  std::vector<llama_token> toks(text.size() + 8);
  int n = llama_tokenize(vocab(), text.data(), static_cast<int32_t>(text.size()), toks.data(), static_cast<int32_t>(toks.size()), add_special, parse_special);
  if (n < 0) {
    toks.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab(), text.data(), static_cast<int32_t>(text.size()), toks.data(), static_cast<int32_t>(toks.size()), add_special, parse_special);
  }
  if (n < 0) {
    ThrowError(env, "TOKENIZE_FAILED", "tokenization failed");
    return env.Undefined();
  }
  Napi::Int32Array out = Napi::Int32Array::New(env, static_cast<size_t>(n));
  std::memcpy(out.Data(), toks.data(), sizeof(llama_token) * static_cast<size_t>(n));
  return out;
}

// Raw bytes, not a string: one UTF-8 character can be split across tokens, so the caller
// decodes a stream of pieces.
Napi::Value Model::TokenToPiece(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    ThrowError(env, "BAD_ARGUMENT", "tokenToPiece(token: number, special?: boolean)");
    return env.Undefined();
  }
  int32_t tok = info[0].As<Napi::Number>().Int32Value();
  if (tok < 0 || tok >= llama_vocab_n_tokens(vocab())) {
    ThrowError(env, "BAD_ARGUMENT", "token id out of range");
    return env.Undefined();
  }
  bool special = info.Length() > 1 && info[1].IsBoolean() ? info[1].As<Napi::Boolean>().Value() : false;
  char buf[256];
  int n = llama_token_to_piece(vocab(), tok, buf, sizeof buf, 0, special);
  if (n < 0) {
    std::vector<char> big(static_cast<size_t>(-n));
    n = llama_token_to_piece(vocab(), tok, big.data(), static_cast<int32_t>(big.size()), 0, special);
    return Napi::Buffer<char>::Copy(env, big.data(), static_cast<size_t>(std::max(n, 0)));
  }
  return Napi::Buffer<char>::Copy(env, buf, static_cast<size_t>(n));
}

Napi::Value Model::Detokenize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsTypedArray()) {
    ThrowError(env, "BAD_ARGUMENT", "detokenize(tokens: Int32Array, removeSpecial?: boolean, unparseSpecial?: boolean)");
    return env.Undefined();
  }
  Napi::Int32Array arr = info[0].As<Napi::Int32Array>();
  int32_t nv = llama_vocab_n_tokens(vocab());
  for (size_t i = 0; i < arr.ElementLength(); i++) {
    if (arr[i] < 0 || arr[i] >= nv) {
      ThrowError(env, "BAD_ARGUMENT", "token id out of range");
      return env.Undefined();
    }
  }
  bool remove_special = info.Length() > 1 && info[1].IsBoolean() ? info[1].As<Napi::Boolean>().Value() : false;
  bool unparse_special = info.Length() > 2 && info[2].IsBoolean() ? info[2].As<Napi::Boolean>().Value() : false;
  std::string out(arr.ElementLength() * 8 + 16, '\0');
  int n = llama_detokenize(vocab(), arr.Data(), static_cast<int32_t>(arr.ElementLength()), out.data(), static_cast<int32_t>(out.size()), remove_special, unparse_special);
  if (n < 0) {
    out.resize(static_cast<size_t>(-n));
    n = llama_detokenize(vocab(), arr.Data(), static_cast<int32_t>(arr.ElementLength()), out.data(), static_cast<int32_t>(out.size()), remove_special, unparse_special);
  }
  out.resize(static_cast<size_t>(std::max(n, 0)));
  return Napi::Buffer<char>::Copy(env, out.data(), out.size());
}

Napi::Value Model::IsEog(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  return Napi::Boolean::New(env, llama_vocab_is_eog(vocab(), info[0].As<Napi::Number>().Int32Value()));
}

Napi::Value Model::ApplyChatTemplate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsArray()) {
    ThrowError(env, "BAD_ARGUMENT", "applyChatTemplate(messages: {role, content}[], addAssistant?: boolean, template?: string)");
    return env.Undefined();
  }
  Napi::Array msgs = info[0].As<Napi::Array>();
  bool add_ass = info.Length() > 1 && info[1].IsBoolean() ? info[1].As<Napi::Boolean>().Value() : true;
  std::string tmpl_override = info.Length() > 2 && info[2].IsString() ? info[2].As<Napi::String>().Utf8Value() : "";
  const char* tmpl = tmpl_override.empty() ? llama_model_chat_template(model_, nullptr) : tmpl_override.c_str();
  if (!tmpl) {
    ThrowError(env, "NO_CHAT_TEMPLATE", "the model has no chat template (tokenizer.chat_template)");
    return env.Undefined();
  }
  std::vector<std::string> roles, contents;
  for (uint32_t i = 0; i < msgs.Length(); i++) {
    Napi::Object m = msgs.Get(i).As<Napi::Object>();
    roles.push_back(m.Get("role").ToString().Utf8Value());
    contents.push_back(m.Get("content").ToString().Utf8Value());
  }
  std::vector<llama_chat_message> chat;
  size_t total = 0;
  for (size_t i = 0; i < roles.size(); i++) {
    chat.push_back({roles[i].c_str(), contents[i].c_str()});
    total += contents[i].size() + roles[i].size();
  }
  std::vector<char> buf(total * 2 + 1024);
  int n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), add_ass, buf.data(), static_cast<int32_t>(buf.size()));
  if (n > static_cast<int>(buf.size())) {
    buf.resize(static_cast<size_t>(n));
    n = llama_chat_apply_template(tmpl, chat.data(), chat.size(), add_ass, buf.data(), static_cast<int32_t>(buf.size()));
  }
  if (n < 0) {
    ThrowError(env, "CHAT_TEMPLATE_UNSUPPORTED", "llama.cpp does not support this model's chat template");
    return env.Undefined();
  }
  return Napi::String::New(env, buf.data(), static_cast<size_t>(n));
}

Napi::Value Model::CreateContext(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  Napi::Object opts = info.Length() > 0 && info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(env);
  return Context::Create(env, Value(), opts);
}

// The weight inventory as llama.cpp loaded it: name, type, bytes, and where the data lives
// (host address, buffer name). The residency engine maps these to file ranges.
Napi::Value Model::Tensors(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!CheckAlive(env)) return env.Undefined();
  return TensorInventory(env, model_);
}

Napi::Value Model::Free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (long n = live_contexts(); n > 0) {
    ThrowError(env, "BUSY", "the model has " + std::to_string(n) + " live context" + (n == 1 ? "" : "s") + "; free " + (n == 1 ? "it" : "them") + " first");
    return env.Undefined();
  }
  owner_.reset();
  model_ = nullptr;
  return env.Undefined();
}

}  // namespace rf
