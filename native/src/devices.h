// Devices beyond the CPU: llama.cpp's RPC servers (other machines' memory) and whatever GPU
// backends the build has, listed as ggml reports them, and the network counters of the RPC
// connections.
#pragma once
#include <napi.h>

#include <string>

#include "ggml-backend.h"

namespace rf {

// Checks that an RPC server answers with our protocol version (a short TCP handshake of our
// own, so an unreachable or foreign server is an error here instead of an abort inside ggml),
// then registers it with ggml once. Its devices are named "RPC<n>" in registration order, so
// callers find them by endpoint ("rpc:host:port" in loadModel's devices). nullptr on error.
ggml_backend_reg_t RegisterRpcServer(const std::string& endpoint, std::string* err);

// One device as JS sees it: { name, description, type, backend, memoryFree, memoryTotal }.
Napi::Object DeviceObject(Napi::Env env, ggml_backend_dev_t d);

// listDevices(rpcServers?: string[]) -> [{ name, description, type, backend, memoryFree, memoryTotal }]
Napi::Value ListDevices(const Napi::CallbackInfo& info);

// socketStats() -> [{ peer: "host:port", bytesSent, bytesReceived }]: every TCP connection this
// process holds (the RPC backend's among them), from the kernel's own counters.
Napi::Value SocketStats(const Napi::CallbackInfo& info);

// keepRpcAlive(endpoints: string[], timeoutMs): this process's TCP connections to those nodes
// declare the peer dead after `timeoutMs` without an answer (TCP_USER_TIMEOUT, with keepalive
// probes while a reply is awaited). A node whose machine vanishes (power, cable, partition)
// then ends the run like a node that died, instead of the decode waiting for ever. Returns the
// connections armed.
Napi::Value KeepRpcAlive(const Napi::CallbackInfo& info);

}  // namespace rf
