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

Napi::Error MakeError(Napi::Env env, const char* code, const std::string& message);

inline void ThrowError(Napi::Env env, const char* code, const std::string& message) {
  MakeError(env, code, message).ThrowAsJavaScriptException();
}

}  // namespace rf
