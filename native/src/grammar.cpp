#include "grammar.h"

#include <cmath>
#include <exception>

#include "common.h"

namespace rf {

namespace {

struct Guard {
  llama_sampler* inner;
  bool stuck = false;
};

const char* GuardName(const llama_sampler*) { return "ramforge-grammar"; }

void GuardAccept(llama_sampler* s, llama_token tok) {
  auto* g = static_cast<Guard*>(s->ctx);
  if (g->stuck) return;
  // A token the grammar allowed never throws; anything else is caught, not let through a C
  // frame of the sampler chain.
  try {
    llama_sampler_accept(g->inner, tok);
  } catch (const std::exception&) {
    g->stuck = true;
  }
}

void GuardApply(llama_sampler* s, llama_token_data_array* cur_p) {
  auto* g = static_cast<Guard*>(s->ctx);
  if (!g->stuck) {
    try {
      llama_sampler_apply(g->inner, cur_p);
    } catch (const std::exception&) {
      g->stuck = true;
    }
  }
  bool any = false;
  for (size_t i = 0; i < cur_p->size && !any; i++) any = std::isfinite(cur_p->data[i].logit);
  if (any && !g->stuck) return;
  // Nothing allowed: the rest of the chain still needs a candidate to pick; the caller sees
  // GrammarStuck and ends the generation without using it.
  g->stuck = true;
  if (cur_p->size > 0) cur_p->data[0].logit = 0.0f;
}

void GuardReset(llama_sampler* s) {
  auto* g = static_cast<Guard*>(s->ctx);
  llama_sampler_reset(g->inner);
  g->stuck = false;
}

llama_sampler* GuardClone(const llama_sampler* s);

void GuardFree(llama_sampler* s) {
  auto* g = static_cast<Guard*>(s->ctx);
  llama_sampler_free(g->inner);
  delete g;
}

llama_sampler_i kGuardIface = {
    /* .name              = */ GuardName,
    /* .accept            = */ GuardAccept,
    /* .apply             = */ GuardApply,
    /* .reset             = */ GuardReset,
    /* .clone             = */ GuardClone,
    /* .free              = */ GuardFree,
    /* .backend_init      = */ nullptr,
    /* .backend_accept    = */ nullptr,
    /* .backend_apply     = */ nullptr,
    /* .backend_set_input = */ nullptr,
    /* .backend_reset     = */ nullptr,
    /* .copy_state        = */ nullptr,
};

llama_sampler* GuardClone(const llama_sampler* s) {
  const auto* g = static_cast<const Guard*>(s->ctx);
  llama_sampler* inner = llama_sampler_clone(g->inner);
  if (!inner) return nullptr;
  return llama_sampler_init(&kGuardIface, new Guard{inner, g->stuck});
}

// llama.cpp reports a bad grammar with nullptr; anything thrown on the way (memory) is the same.
llama_sampler* InitGrammar(const llama_vocab* vocab, const std::string& gbnf) {
  try {
    return llama_sampler_init_grammar(vocab, gbnf.c_str(), "root");
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

std::string CheckGrammar(const llama_vocab* vocab, const std::string& gbnf) {
  if (gbnf.size() > kMaxGrammarBytes) return "the grammar is longer than " + std::to_string(kMaxGrammarBytes) + " bytes";
  if (gbnf.find('\0') != std::string::npos) return "the grammar holds a NUL character";
  LogCapture capture;
  llama_sampler* s = InitGrammar(vocab, gbnf);
  if (s) {
    llama_sampler_free(s);
    return "";
  }
  std::string why = capture.Errors();
  return "the grammar is not valid GBNF (with a 'root' rule)" + (why.empty() ? std::string() : ": " + why);
}

llama_sampler* InitGuardedGrammar(const llama_vocab* vocab, const std::string& gbnf) {
  llama_sampler* inner = InitGrammar(vocab, gbnf);
  if (!inner) return nullptr;
  return llama_sampler_init(&kGuardIface, new Guard{inner});
}

bool GrammarStuck(llama_sampler* chain) {
  if (!chain) return false;
  const int n = llama_sampler_chain_n(chain);
  for (int i = 0; i < n; i++) {
    llama_sampler* s = llama_sampler_chain_get(chain, i);
    if (s && s->iface == &kGuardIface) return static_cast<Guard*>(s->ctx)->stuck;
  }
  return false;
}

}  // namespace rf
