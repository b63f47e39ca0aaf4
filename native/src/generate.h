// Generation on a context: the prompt decoded (reusing the KV cache's common prefix), then
// tokens sampled one at a time, or by draft-and-verify passes when a draft is attached, on a
// libuv pool thread; each token goes to JS as it comes through a thread-safe function.
#pragma once
#include <napi.h>

#include <string>
#include <vector>

#include "llama.h"
#include "logprobs.h"
#include "sampling.h"

namespace rf {

class Context;

// Decodes `n` tokens into the context's sequence 0 in pieces of `n_batch`, after what it holds.
// Returns false with `err` set when llama.cpp or the stream schedule fails.
// phase: 0 a prompt, 1 decoding (the routing tap counts steps per phase); -1 guesses by size.
bool DecodeTokens(Context* c, const llama_token* toks, int n, int n_batch, std::string* err, int phase = -1);

// As DecodeTokens, every position with logits: appends the log-probabilities of toks[1..n-1],
// each with the `n_top` most likely tokens at its position.
bool DecodePromptLogprobs(Context* c, const llama_token* toks, int n, int n_batch, int n_top,
                          std::vector<PositionLogprobs>* out, std::string* err);

// Starts a generation on `ctx` (`self` is its JS object, kept alive meanwhile) and returns the
// promise of its result; `on_token` may be empty.
Napi::Promise QueueGenerate(Napi::Env env, Context* ctx, Napi::Object self, std::vector<llama_token> prompt,
                            const SamplingOpts& sampling, Napi::Function on_token);

}  // namespace rf
