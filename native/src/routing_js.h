// The routing tap's JS surface (routing_js.cpp).
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "routing.h"

namespace rf {

class Residency;

// createContext's `routing` option; "" or why it is malformed.
std::string ParseRouting(const Napi::Value& v, RouteConfig* out);
// The residency engine createContext's options ask for (observeLayers, remoteNodes, routing), or
// null; *callback: whether the scheduler's eval callback must be installed; *err: why not.
std::unique_ptr<Residency> MakeResidency(const Napi::Object& opts, bool* callback, std::string* err);

}  // namespace rf
