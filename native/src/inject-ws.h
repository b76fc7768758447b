// A minimal WebSocket client (RFC 6455) over a Unix socket or TCP: the collector speaks the
// server's own channel, binary frames for record batches and text frames for control. Client
// frames are masked as the RFC requires; server frames are read whole (no fragmentation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace streamscope {

class WsClient {
 public:
  WsClient() = default;
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  /**
   * Connects and upgrades `path` on a Unix socket (socketPath) or http://HOST:PORT (url), with
   * `token` as a bearer token when not empty. Returns "" or why it failed.
   */
  std::string open(const std::string& socketPath, const std::string& url, const std::string& path,
                   const std::string& token, int timeoutMs);
  bool isOpen() const { return fd_ >= 0; }
  /** Sends one whole message; false (and closed) on failure. Blocks at most timeoutMs. */
  bool sendBinary(const uint8_t* data, size_t size, int timeoutMs);
  bool sendText(const std::string& text, int timeoutMs);
  /**
   * Waits up to waitMs for a text message: 1 got one, 0 none yet, -1 the connection ended.
   * Pings are answered and binary messages skipped on the way.
   */
  int receiveText(std::string& text, int waitMs);
  void close();
  /** After fork, in the child: drop the child's copy of the descriptor; the parent's stays open. */
  void abandonAndCloseDescriptor();

 private:
  bool sendFrame(uint8_t opcode, const uint8_t* data, size_t size, int timeoutMs);
  bool writeAll(const uint8_t* data, size_t size, int timeoutMs);
  int readSome(int waitMs);
  void closeKeepingWhatArrived();
  bool parseFrame(uint8_t& opcode, std::string& payload);

  int fd_ = -1;
  std::vector<uint8_t> in_;  // bytes read but not yet parsed
};

}  // namespace streamscope
