// Continuous batching: several requests decode together in one llama.cpp batch, each in its own
// KV sequence. A request joins (its prompt is fed in the next steps) or leaves (its sequence is
// cleared) between steps, never inside one. Every step is one pass over the weights — under the
// stream schedule, one read of the streamed weights — whatever the number of sequences in it, so
// each streamed byte produces a token for every active request.
//
// A loop thread owns the llama context while the server is open; events (tokens, ends, steps)
// go to JS through one thread-safe function.
#pragma once
#include <napi.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "llama.h"
#include "logprobs.h"
#include "sampling.h"

namespace rf {

class Context;

struct BatchEvent {
  enum Kind { kToken, kDone, kError, kStep };
  explicit BatchEvent(Kind k) : kind(k) {}
  Kind kind;
  int id = 0;
  int index = 0;
  int32_t token = 0;
  std::string piece;
  double t_ms = 0;
  bool has_logprobs = false;
  PositionLogprobs logprobs;
  // kDone
  std::vector<int32_t> tokens;
  std::vector<double> per_token_ms;
  std::string stop_reason;
  double prompt_ms = 0, ttft_ms = 0, total_ms = 0;
  int prompt_tokens = 0;
  bool has_prompt_logprobs = false;
  std::vector<PositionLogprobs> prompt_logprobs;
  // kError
  std::string message;
  // kStep
  int n_seq = 0, n_tokens = 0, n_decode = 0;
  double step_ms = 0;
};

class BatchServer {
 public:
  BatchServer(Context* ctx, Napi::ThreadSafeFunction events);
  ~BatchServer();
  BatchServer(const BatchServer&) = delete;
  BatchServer& operator=(const BatchServer&) = delete;

  // Thread-safe. Returns the request id.
  int Submit(std::vector<llama_token> prompt, const SamplingOpts& s);
  void Cancel(int id);
  // Cancels everything, joins the loop thread. Idempotent.
  void Close();
  int queued();
  int active();

 private:
  struct Req {
    int id;
    int seq = -1;
    std::vector<llama_token> prompt;
    size_t fed = 0;
    int pos = 0;
    llama_token last = -1;
    bool has_last = false;
    SamplingOpts sampling;
    SamplerPtr smpl;
    std::vector<int32_t> tokens;
    std::vector<double> per_token;
    double t0 = 0, t_prompt_done = 0, t_prev = 0;
    bool cancelled = false;
    int logits_at = -1;
    // sampling.prompt_logprobs: this step's batch rows of prompt positions, and what they gave.
    std::vector<std::pair<int, size_t>> prompt_rows;
    std::vector<PositionLogprobs> prompt_logprobs;
  };
  using ReqPtr = std::unique_ptr<Req>;

  // The loop, one step at a time: wait, admit what fits and end what was cancelled before it
  // started (false when closing); drop the requests that cannot be served; fill the batch
  // (returns the sequences decoding); sample each sequence and end those that are done.
  void Loop();
  bool Admit(std::vector<int>* cancels);
  void DropUnservable(const std::vector<int>& cancels);
  int FillBatch(llama_batch* batch);
  void SampleAll(double now);
  // The log-probabilities of the prompt tokens this step's rows predict.
  void TakePromptLogprobs(Req* r);
  // The active request at `i`, out of the active list (under the lock: active() reads it).
  ReqPtr Take(size_t i);
  // A request leaves: its sequence's cache cells and its slot are freed, then its end (Finish)
  // or its error (Fail) goes to JS.
  void Release(Req* r);
  void Finish(ReqPtr r, const std::string& why);
  void Fail(ReqPtr r, const std::string& message);
  void Emit(std::unique_ptr<BatchEvent> e);

  Context* ctx_;
  Napi::ThreadSafeFunction events_;
  int n_seq_ = 1;
  int n_ctx_seq_ = 0;
  int n_batch_ = 512;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<ReqPtr> pending_;
  std::vector<ReqPtr> active_;
  std::vector<char> seq_used_;
  std::vector<int> cancels_;
  int next_id_ = 1;
  bool stop_ = false;
  bool closed_ = false;
  std::thread loop_;
};

}  // namespace rf
