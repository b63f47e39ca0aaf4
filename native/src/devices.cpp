#include "devices.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h>  // glibc's tcp_info lacks the byte counters
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <fcntl.h>
#include <mutex>
#include <map>

#include "common.h"
#include "ggml-backend.h"
#include "ggml-rpc.h"

namespace rf {
namespace {

// The RPC protocol's handshake, as ggml-rpc.cpp writes it: | cmd (1 byte) | size (8) | data |,
// answered with | size (8) | data |. HELLO is command 14 and carries 24 bytes of transport
// capabilities each way (all zero: plain TCP).
constexpr uint8_t kRpcHello = 14;
constexpr size_t kCapsBytes = 24;
constexpr int kConnectTimeoutMs = 3000;

bool ParseEndpoint(const std::string& ep, std::string* host, std::string* port) {
  size_t c = ep.rfind(':');
  if (c == std::string::npos || c == 0 || c + 1 >= ep.size()) return false;
  *host = ep.substr(0, c);
  *port = ep.substr(c + 1);
  for (char ch : *port)
    if (ch < '0' || ch > '9') return false;
  return true;
}

bool WaitFd(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  return poll(&p, 1, timeout_ms) == 1 && !(p.revents & (POLLERR | POLLNVAL));
}

bool SendAll(int fd, const void* buf, size_t n) {
  const char* b = static_cast<const char*>(buf);
  while (n > 0) {
    if (!WaitFd(fd, POLLOUT, kConnectTimeoutMs)) return false;
    ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    b += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool RecvAll(int fd, void* buf, size_t n) {
  char* b = static_cast<char*>(buf);
  while (n > 0) {
    if (!WaitFd(fd, POLLIN, kConnectTimeoutMs)) return false;
    ssize_t r = recv(fd, b, n, 0);
    if (r <= 0) return false;
    b += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

std::string Hello(const std::string& ep) {
  std::string host, port;
  if (!ParseEndpoint(ep, &host, &port)) return "'" + ep + "' is not host:port";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) return "cannot resolve " + host + ": " + gai_strerror(rc);
  std::string why = "no address";
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (s < 0) continue;
    int rc = connect(s, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS && WaitFd(s, POLLOUT, kConnectTimeoutMs)) {
      int e = 0;
      socklen_t l = sizeof(e);
      getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &l);
      rc = e == 0 ? 0 : -1;
      errno = e == 0 ? ETIMEDOUT : e;
    } else if (rc != 0 && errno == EINPROGRESS) {
      errno = ETIMEDOUT;
    }
    if (rc == 0) fd = s;
    else {
      why = std::strerror(errno);
      close(s);
    }
  }
  freeaddrinfo(res);
  if (fd < 0) return "cannot connect: " + why;
  uint8_t req[1 + 8 + kCapsBytes] = {0};
  req[0] = kRpcHello;
  uint64_t size = kCapsBytes;
  std::memcpy(req + 1, &size, sizeof(size));
  uint64_t rsp_size = 0;
  uint8_t rsp[4 + kCapsBytes] = {0};
  bool ok = SendAll(fd, req, sizeof(req)) && RecvAll(fd, &rsp_size, sizeof(rsp_size));
  std::string out;
  if (!ok) out = "no answer to the RPC handshake (busy with another client, or not an RPC server)";
  else if (rsp_size != sizeof(rsp)) out = "not llama.cpp's RPC protocol " + std::to_string(RPC_PROTO_MAJOR_VERSION) + ".x (handshake of " + std::to_string(rsp_size) + " bytes)";
  else if (!RecvAll(fd, rsp, sizeof(rsp))) out = "the handshake was cut off";
  else if (rsp[0] != RPC_PROTO_MAJOR_VERSION || rsp[1] > RPC_PROTO_MINOR_VERSION)
    out = "speaks RPC protocol " + std::to_string(rsp[0]) + "." + std::to_string(rsp[1]) + "." + std::to_string(rsp[2]) + ", this build " +
          std::to_string(RPC_PROTO_MAJOR_VERSION) + "." + std::to_string(RPC_PROTO_MINOR_VERSION) + "." + std::to_string(RPC_PROTO_PATCH_VERSION);
  close(fd);
  return out;
}

std::mutex g_rpc_mu;
std::map<std::string, ggml_backend_reg_t> g_rpc_registered;

const char* TypeName(enum ggml_backend_dev_type t) {
  switch (t) {
    case GGML_BACKEND_DEVICE_TYPE_CPU: return "cpu";
    case GGML_BACKEND_DEVICE_TYPE_GPU: return "gpu";
    case GGML_BACKEND_DEVICE_TYPE_IGPU: return "igpu";
    default: return "accel";
  }
}

std::string PeerOf(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "";
  char host[INET6_ADDRSTRLEN] = {0};
  int port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
    port = ntohs(a->sin6_port);
  } else {
    return "";
  }
  return std::string(host) + ":" + std::to_string(port);
}

// Calls fn(fd, "host:port") for each TCP connection this process holds.
template <typename Fn>
void ForEachTcpPeer(Fn fn) {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return;
  while (dirent* e = readdir(dir)) {
    int fd = atoi(e->d_name);
    if (fd <= 2 || fd == dirfd(dir)) continue;
    int type = 0;
    socklen_t tl = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM) continue;
    std::string peer = PeerOf(fd);
    if (!peer.empty()) fn(fd, peer);
  }
  closedir(dir);
}

}  // namespace

ggml_backend_reg_t RegisterRpcServer(const std::string& endpoint, std::string* err) {
  std::lock_guard<std::mutex> lock(g_rpc_mu);
  auto it = g_rpc_registered.find(endpoint);
  if (it != g_rpc_registered.end()) return it->second;
  std::string why = Hello(endpoint);
  if (!why.empty()) {
    *err = "RPC node " + endpoint + ": " + why;
    return nullptr;
  }
  ggml_backend_reg_t reg = ggml_backend_rpc_add_server(endpoint.c_str());
  if (!reg) {
    *err = "RPC node " + endpoint + ": it has no devices";
    return nullptr;
  }
  ggml_backend_register(reg);
  g_rpc_registered[endpoint] = reg;
  return reg;
}

Napi::Object DeviceObject(Napi::Env env, ggml_backend_dev_t d) {
  size_t free_b = 0, total_b = 0;
  ggml_backend_dev_memory(d, &free_b, &total_b);
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", ggml_backend_dev_name(d));
  o.Set("description", ggml_backend_dev_description(d));
  o.Set("type", TypeName(ggml_backend_dev_type(d)));
  ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(d);
  o.Set("backend", reg ? ggml_backend_reg_name(reg) : "");
  o.Set("memoryFree", static_cast<double>(free_b));
  o.Set("memoryTotal", static_cast<double>(total_b));
  return o;
}

Napi::Value ListDevices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() > 0 && info[0].IsArray()) {
    Napi::Array a = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) {
      if (!a.Get(i).IsString()) {
        ThrowError(env, "BAD_ARGUMENT", "listDevices(rpcServers?: string[])");
        return env.Undefined();
      }
      std::string err;
      if (!RegisterRpcServer(a.Get(i).As<Napi::String>().Utf8Value(), &err)) {
        ThrowError(env, "RPC_UNREACHABLE", err);
        return env.Undefined();
      }
    }
  }
  Napi::Array out = Napi::Array::New(env);
  for (size_t i = 0; i < ggml_backend_dev_count(); i++) out.Set(out.Length(), DeviceObject(env, ggml_backend_dev_get(i)));
  return out;
}

Napi::Value SocketStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  ForEachTcpPeer([&](int fd, const std::string& peer) {
    tcp_info ti{};
    socklen_t il = sizeof(ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &il) != 0) return;
    Napi::Object o = Napi::Object::New(env);
    o.Set("peer", peer);
    o.Set("bytesSent", static_cast<double>(ti.tcpi_bytes_acked));
    o.Set("bytesReceived", static_cast<double>(ti.tcpi_bytes_received));
    out.Set(out.Length(), o);
  });
  return out;
}

Napi::Value KeepRpcAlive(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsArray() || !info[1].IsNumber()) {
    ThrowError(env, "BAD_ARGUMENT", "keepRpcAlive(endpoints: string[], timeoutMs: number)");
    return env.Undefined();
  }
  std::vector<std::string> ports;
  Napi::Array a = info[0].As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    if (!a.Get(i).IsString()) continue;
    std::string ep = a.Get(i).As<Napi::String>().Utf8Value();
    ports.push_back(ep.substr(ep.rfind(':') + 1));
  }
  const int timeout_ms = std::max(1000, a.Length() ? info[1].As<Napi::Number>().Int32Value() : 10000);
  int armed = 0;
  ForEachTcpPeer([&](int fd, const std::string& peer) {
    std::string port = peer.substr(peer.rfind(':') + 1);
    bool ours = false;
    for (const auto& p : ports) ours = ours || p == port;
    if (!ours) return;
    int on = 1, idle = 1, intvl = 1, cnt = std::max(1, timeout_ms / 1000);
    unsigned int user_timeout = static_cast<unsigned int>(timeout_ms);
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) == 0 && setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) == 0 &&
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl)) == 0 && setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) == 0 &&
        setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof(user_timeout)) == 0)
      armed++;
  });
  return Napi::Number::New(env, armed);
}

}  // namespace rf
