#include "common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>

#include "ggml.h"
#include "llama.h"

namespace rf {
namespace {

std::mutex g_mu;
std::deque<std::string> g_errors;  // bounded: only the last few lines matter for a message
std::string g_partial;
ggml_log_level g_last_level = GGML_LOG_LEVEL_NONE;
int g_print_threshold = GGML_LOG_LEVEL_ERROR;
thread_local std::string* t_capture = nullptr;

int ThresholdFromEnv() {
  const char* v = std::getenv("RAMFORGE_LLAMA_LOG");
  if (!v) return GGML_LOG_LEVEL_ERROR;
  if (!std::strcmp(v, "none")) return 100;
  if (!std::strcmp(v, "debug")) return GGML_LOG_LEVEL_DEBUG;
  if (!std::strcmp(v, "info")) return GGML_LOG_LEVEL_INFO;
  if (!std::strcmp(v, "warn")) return GGML_LOG_LEVEL_WARN;
  return GGML_LOG_LEVEL_ERROR;
}

void OnLog(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_CONT) level = g_last_level;
  g_last_level = level;
  if (level >= g_print_threshold && level != GGML_LOG_LEVEL_NONE) std::fputs(text, stderr);
  if (level < GGML_LOG_LEVEL_WARN) return;
  if (t_capture && t_capture->size() < 4096) *t_capture += text;
  std::lock_guard<std::mutex> lock(g_mu);
  g_partial += text;
  size_t nl;
  while ((nl = g_partial.find('\n')) != std::string::npos) {
    std::string line = g_partial.substr(0, nl);
    g_partial.erase(0, nl + 1);
    if (line.empty()) continue;
    g_errors.push_back(line);
    while (g_errors.size() > 12) g_errors.pop_front();
  }
}

}  // namespace

void InstallLogCapture() {
  g_print_threshold = ThresholdFromEnv();
  llama_log_set(OnLog, nullptr);
}

void LogMark() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_errors.clear();
  g_partial.clear();
}

std::string LogErrorsSinceMark() {
  std::lock_guard<std::mutex> lock(g_mu);
  std::string out;
  for (const auto& l : g_errors) {
    if (!out.empty()) out += "; ";
    out += l;
  }
  return out;
}

// Nested captures: the inner one collects; the outer is restored after it.
LogCapture::LogCapture() : prev_(t_capture) { t_capture = &text_; }

LogCapture::~LogCapture() { t_capture = prev_; }

std::string LogCapture::Errors() const {
  std::string out;
  size_t start = 0;
  while (start < text_.size()) {
    size_t nl = text_.find('\n', start);
    std::string line = text_.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

Napi::Error MakeError(Napi::Env env, const char* code, const std::string& message) {
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  return err;
}

}  // namespace rf
