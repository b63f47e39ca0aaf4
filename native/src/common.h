// Shared helpers for the addon: error construction and llama.cpp log capture.
#pragma once
#include <napi.h>
#include <string>

namespace rf {

// Routes llama.cpp/ggml logs: recent warnings/errors are kept so that a failed load can say
// why in its JS exception; what is printed to stderr follows RAMFORGE_LLAMA_LOG
// (none|error|warn|info|debug, default error).
void InstallLogCapture();
// Starts a new capture window (per operation) and returns the errors seen since the last mark.
void LogMark();
std::string LogErrorsSinceMark();

// While one lives, the warnings and errors llama.cpp logs on this thread are also kept in it:
// the reason for one call's failure, untouched by what other threads log meanwhile.
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  // The captured lines, joined with "; ".
  std::string Errors() const;

 private:
  std::string text_;
  std::string* prev_;  // the capture this one nests in
};

Napi::Error MakeError(Napi::Env env, const char* code, const std::string& message);

inline void ThrowError(Napi::Env env, const char* code, const std::string& message) {
  MakeError(env, code, message).ThrowAsJavaScriptException();
}

}  // namespace rf
