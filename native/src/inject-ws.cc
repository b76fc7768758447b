#include "inject-ws.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

namespace streamscope {

namespace {

constexpr size_t kMaxServerMessageBytes = 1u << 20;

std::string base64(const uint8_t* data, size_t size) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = static_cast<uint32_t>(data[i]) << 16;
    if (i + 1 < size) v |= static_cast<uint32_t>(data[i + 1]) << 8;
    if (i + 2 < size) v |= data[i + 2];
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += i + 1 < size ? abc[(v >> 6) & 63] : '=';
    out += i + 2 < size ? abc[v & 63] : '=';
  }
  return out;
}

uint32_t randomWord() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  return rng();
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Connects a non-blocking socket within timeoutMs; returns "" or why not.
std::string connectWithin(int fd, const sockaddr* addr, socklen_t len, int timeoutMs) {
  if (::connect(fd, addr, len) == 0) return "";
  if (errno != EINPROGRESS) return std::strerror(errno);
  pollfd p{fd, POLLOUT, 0};
  if (poll(&p, 1, timeoutMs) <= 0) return "timed out";
  int err = 0;
  socklen_t errLen = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errLen);
  return err == 0 ? "" : std::strerror(err);
}

}  // namespace

WsClient::~WsClient() { close(); }

void WsClient::abandonAndCloseDescriptor() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void WsClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  in_.clear();
}

// A send that fails because the server closed the connection: what the server sent before it
// closed (its "refused" with the reason) is still in the socket, so it is read first and stays
// for receiveText, which says why instead of "the connection closed".
void WsClient::closeKeepingWhatArrived() {
  if (fd_ < 0) return;
  uint8_t buf[16384];
  while (in_.size() <= kMaxServerMessageBytes) {
    ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    in_.insert(in_.end(), buf, buf + n);
  }
  ::close(fd_);
  fd_ = -1;
}

std::string WsClient::open(const std::string& socketPath, const std::string& url, const std::string& path,
                           const std::string& token, int timeoutMs) {
  close();
  std::string hostHeader = "localhost";
  if (!socketPath.empty()) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socketPath.size() >= sizeof addr.sun_path) return "socket path " + socketPath + " is too long";
    std::memcpy(addr.sun_path, socketPath.c_str(), socketPath.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    std::string why = connectWithin(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr, timeoutMs);
    if (!why.empty()) {
      close();
      return "cannot connect to " + socketPath + ": " + why;
    }
  } else {
    // http://HOST[:PORT][/...]; IPv6 hosts in brackets.
    std::string rest = url.substr(7);
    rest = rest.substr(0, rest.find('/'));
    hostHeader = rest;
    std::string host = rest;
    std::string port = "80";
    size_t colon = rest.rfind(':');
    if (colon != std::string::npos && rest.find(']', colon) == std::string::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
    }
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
    if (rc != 0) return "cannot resolve " + host + ": " + gai_strerror(rc);
    std::string why = "no address";
    for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
      fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
      if (fd_ < 0) continue;
      why = connectWithin(fd_, a->ai_addr, a->ai_addrlen, timeoutMs);
      if (!why.empty()) close();
    }
    freeaddrinfo(found);
    if (fd_ < 0) return "cannot connect to " + url + ": " + why;
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // small frames leave at once
  }
  uint8_t key[16];
  for (int i = 0; i < 4; i++) {
    uint32_t w = randomWord();
    std::memcpy(key + 4 * i, &w, 4);
  }
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + hostHeader +
                        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        "Sec-WebSocket-Key: " + base64(key, 16) + "\r\n";
  if (!token.empty()) request += "Authorization: Bearer " + token + "\r\n";
  request += "\r\n";
  if (!writeAll(reinterpret_cast<const uint8_t*>(request.data()), request.size(), timeoutMs)) {
    close();
    return "the server closed the connection during the handshake";
  }
  int64_t deadline = nowMs() + timeoutMs;
  std::string head;
  for (;;) {
    auto end = std::search(in_.begin(), in_.end(), "\r\n\r\n", "\r\n\r\n" + 4);
    if (end != in_.end()) {
      head.assign(in_.begin(), end);
      in_.erase(in_.begin(), end + 4);
      break;
    }
    int64_t left = deadline - nowMs();
    if (left <= 0 || in_.size() > 16384 || readSome(static_cast<int>(left)) <= 0) {
      close();
      return "no WebSocket handshake answer from the server";
    }
  }
  if (head.rfind("HTTP/1.1 101", 0) != 0) {
    std::string status = head.substr(0, head.find('\r'));
    close();
    return "the server refused the connection: " + status;
  }
  return "";
}

bool WsClient::writeAll(const uint8_t* data, size_t size, int timeoutMs) {
  int64_t deadline = nowMs() + timeoutMs;
  while (size > 0 && fd_ >= 0) {
    ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      int64_t left = deadline - nowMs();
      pollfd p{fd_, POLLOUT, 0};
      if (left > 0 && poll(&p, 1, static_cast<int>(left)) >= 0) continue;
    }
    closeKeepingWhatArrived();
    return false;
  }
  return fd_ >= 0;
}

bool WsClient::sendFrame(uint8_t opcode, const uint8_t* data, size_t size, int timeoutMs) {
  if (fd_ < 0) return false;
  std::vector<uint8_t> frame;
  frame.reserve(size + 14);
  frame.push_back(static_cast<uint8_t>(0x80 | opcode));  // FIN: every message is one frame
  if (size < 126) {
    frame.push_back(static_cast<uint8_t>(0x80 | size));
  } else if (size <= 0xffff) {
    frame.push_back(0x80 | 126);
    frame.push_back(static_cast<uint8_t>(size >> 8));
    frame.push_back(static_cast<uint8_t>(size & 0xff));
  } else {
    frame.push_back(0x80 | 127);
    for (int i = 7; i >= 0; i--) frame.push_back(static_cast<uint8_t>((static_cast<uint64_t>(size) >> (8 * i)) & 0xff));
  }
  uint32_t maskWord = randomWord();
  uint8_t mask[4];
  std::memcpy(mask, &maskWord, 4);
  frame.insert(frame.end(), mask, mask + 4);
  size_t at = frame.size();
  frame.resize(at + size);
  for (size_t i = 0; i < size; i++) frame[at + i] = data[i] ^ mask[i & 3];
  return writeAll(frame.data(), frame.size(), timeoutMs);
}

bool WsClient::sendBinary(const uint8_t* data, size_t size, int timeoutMs) { return sendFrame(0x2, data, size, timeoutMs); }

bool WsClient::sendText(const std::string& text, int timeoutMs) {
  return sendFrame(0x1, reinterpret_cast<const uint8_t*>(text.data()), text.size(), timeoutMs);
}

int WsClient::readSome(int waitMs) {
  if (fd_ < 0) return -1;
  pollfd p{fd_, POLLIN, 0};
  int ready = poll(&p, 1, waitMs);
  if (ready == 0) return 0;
  uint8_t buf[16384];
  ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n > 0) {
    in_.insert(in_.end(), buf, buf + n);
    return 1;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  close();
  return -1;
}

bool WsClient::parseFrame(uint8_t& opcode, std::string& payload) {
  if (in_.size() < 2) return false;
  opcode = in_[0] & 0x0f;
  bool masked = (in_[1] & 0x80) != 0;
  uint64_t len = in_[1] & 0x7f;
  size_t at = 2;
  if (len == 126) {
    if (in_.size() < 4) return false;
    len = (static_cast<uint64_t>(in_[2]) << 8) | in_[3];
    at = 4;
  } else if (len == 127) {
    if (in_.size() < 10) return false;
    len = 0;
    for (int i = 0; i < 8; i++) len = (len << 8) | in_[2 + i];
    at = 10;
  }
  if (len > kMaxServerMessageBytes) {
    close();  // a server never sends this much control; not ours, or broken
    return false;
  }
  uint8_t mask[4] = {0, 0, 0, 0};
  if (masked) {
    if (in_.size() < at + 4) return false;
    std::memcpy(mask, &in_[at], 4);
    at += 4;
  }
  if (in_.size() < at + len) return false;
  payload.resize(len);
  for (size_t i = 0; i < len; i++) payload[i] = static_cast<char>(in_[at + i] ^ mask[i & 3]);
  in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(at + len));
  return true;
}

int WsClient::receiveText(std::string& text, int waitMs) {
  int64_t deadline = nowMs() + waitMs;
  for (;;) {
    uint8_t opcode = 0;
    std::string payload;
    while (parseFrame(opcode, payload)) {
      switch (opcode) {
        case 0x1:
          text = payload;
          return 1;
        case 0x8:
          close();
          return -1;
        case 0x9:
          sendFrame(0xA, reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), 1000);
          break;
        default:
          break;  // pongs, binary: nothing for the collector
      }
    }
    if (fd_ < 0) return -1;
    int64_t left = deadline - nowMs();
    int got = readSome(left > 0 ? static_cast<int>(left) : 0);
    if (got < 0) return -1;
    if (got == 0 && nowMs() >= deadline) return 0;
  }
}

}  // namespace streamscope
