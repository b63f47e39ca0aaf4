// Sentence embeddings as llama-server makes them: a context created with embeddings on and mean
// pooling decodes one text (all its tokens in one micro-batch, from an empty cache), and the
// pooled hidden state of its sequence is the vector (n_embd floats, not normalized here).
#pragma once
#include <napi.h>

#include <vector>

#include "llama.h"

namespace rf {

class Context;

// Queues the decode on a libuv pool thread; `self` (the context's JS object) is kept alive
// meanwhile. Resolves with a Float32Array (the pooled vector, or with `per_token` each token's
// hidden state in turn, for a context made without pooling), rejects with a coded error.
Napi::Promise QueueEmbed(Napi::Env env, Context* ctx, Napi::Object self, std::vector<llama_token> tokens, bool per_token);

}  // namespace rf
