// Grammar-constrained sampling (GBNF, llama.cpp's llama_sampler_init_grammar), made safe to run
// on any grammar a client sends: the text is checked on the JS thread before a generation starts
// (a bad grammar is a JS error with llama.cpp's reason, never a crash), and in the sampler chain
// the grammar sits inside a guard. libllama aborts the process when the sampled token is one
// the grammar does not allow, which happens only when the grammar allows none of the
// vocabulary's tokens; the guard notices that case, keeps the token away from the grammar and
// marks the chain stuck, and the generation then ends with an error.
#pragma once
#include <string>

#include "llama.h"

namespace rf {

// Grammars longer than this are refused (a schema's grammar is a few KB).
constexpr size_t kMaxGrammarBytes = 1 << 20;

// "" when `gbnf` parses for this vocabulary with a `root` rule, else why not.
std::string CheckGrammar(const llama_vocab* vocab, const std::string& gbnf);

// The guarded grammar sampler, or nullptr when the grammar does not parse.
llama_sampler* InitGuardedGrammar(const llama_vocab* vocab, const std::string& gbnf);

// After a sample from `chain`: its grammar allowed no token, so the token is not the grammar's.
bool GrammarStuck(llama_sampler* chain);

constexpr const char* kGrammarStuckMessage =
    "the grammar allows none of the model's tokens at this point (it asks for text the vocabulary cannot spell)";

}  // namespace rf
