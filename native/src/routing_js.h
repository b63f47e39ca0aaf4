// The routing tap's JS surface (routing_js.cpp).
#pragma once
#include <napi.h>

#include <string>

#include "routing.h"

namespace rf {

// createContext's `routing` option; "" or why it is malformed.
std::string ParseRouting(const Napi::Value& v, RouteConfig* out);

}  // namespace rf
