#include "inject-transport.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "inject-json.h"

namespace streamscope {

namespace {

constexpr uint32_t kLiveFrameMagic = 0x314c5353;  // 'SSL1', apps/server/src/live/protocol.ts
constexpr int kHandshakeMs = 5000;
constexpr int kSendTimeoutMs = 2000;
constexpr int kPollMs = 5;

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<uint8_t> endBatch(const CodecEndCounts& end) {
  CodecWriter w;
  w.endOfStream(end);
  return w.take();
}

class FileTransport : public Transport {
 public:
  explicit FileTransport(std::string path) : path_(std::move(path)), partial_(path_ + ".partial") {}

  std::string open() {
    fd_ = ::open(partial_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return fd_ < 0 ? "cannot write " + partial_ + ": " + std::strerror(errno) : "";
  }
  bool canAccept() override { return true; }
  bool writesFile() const override { return true; }
  void noteLosses(const std::string& text) override { losses_ = text; }
  void push(std::vector<uint8_t> batches) override { write(batches); }
  std::string finish(std::vector<uint8_t> lastBatches, const CodecEndCounts& end, const std::string&, int) override {
    write(lastBatches);
    write(endBatch(end));
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!failure_.empty()) return failure_;
    if (std::rename(partial_.c_str(), path_.c_str()) != 0) return "cannot rename " + partial_ + ": " + std::strerror(errno);
    std::string lost = losses_.empty() ? "" : " (" + losses_ + ")";
    std::fprintf(stderr, "streamscope profile: wrote %s%s\n", path_.c_str(), lost.c_str());
    return "";
  }
  std::string failure() override { return failure_; }
  void abandon() override {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    failure_ = "forked";
  }

 private:
  void write(const std::vector<uint8_t>& bytes) {
    size_t at = 0;
    while (fd_ >= 0 && at < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + at, bytes.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failure_ = "cannot write " + partial_ + ": " + std::strerror(errno);
        ::close(fd_);
        fd_ = -1;
        return;
      }
      at += static_cast<size_t>(n);
    }
  }

  std::string path_;
  std::string partial_;
  int fd_ = -1;
  std::string failure_;
  std::string losses_;
};

class SocketTransport : public Transport {
 public:
  SocketTransport(const InjectConfig& c, const ProcessHello& h) : config_(c), hello_(h), runId_(c.runId) {}
  ~SocketTransport() override {
    if (thread_.joinable()) thread_.detach();  // only at exit; never wait on a stuck server
  }

  /** The first connection is made before the program runs on: no server, no collection. */
  std::string start() {
    bool permanent = false;
    std::string why = connect(permanent);
    if (!why.empty()) return why;
    thread_ = std::thread([this] { loop(); });
    return "";
  }

  bool canAccept() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_ < config_.maxBufferedBytes && failure_.empty();
  }

  void push(std::vector<uint8_t> batches) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_.empty() || done_) return;
      bytes_ += batches.size();
      frames_.push_back(Frame{nextSeq_++, std::move(batches)});
    }
    wake_.notify_all();
  }

  std::string finish(std::vector<uint8_t> lastBatches, const CodecEndCounts& end, const std::string& report,
                     int waitMs) override {
    std::vector<uint8_t> tail = endBatch(end);
    lastBatches.insert(lastBatches.end(), tail.begin(), tail.end());
    push(std::move(lastBatches));
    std::unique_lock<std::mutex> lock(mutex_);
    report_ = report;
    finishing_ = true;
    wake_.notify_all();
    wake_.wait_for(lock, std::chrono::milliseconds(waitMs), [this] { return done_ || !failure_.empty(); });
    if (done_) {
      lock.unlock();
      if (thread_.joinable()) thread_.join();
      return "";
    }
    done_ = true;  // the sender gives up at its next step
    size_t lost = frames_.size();
    std::string why = failure_.empty() ? "the server did not confirm them within " + std::to_string(waitMs) + " ms"
                                       : failure_;
    return std::to_string(lost) + " batches of records were not delivered: " + why;
  }

  std::string failure() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

  void abandon() override {
    // In a forked child: the parent's thread is not here and its mutex may be held; only the
    // child's copy of the descriptor is dropped (the parent's connection is untouched).
    ws_.abandonAndCloseDescriptor();
  }

 private:
  struct Frame {
    uint32_t seq;
    std::vector<uint8_t> batches;
  };

  std::string helloJson() const {
    std::string json = "{\"type\":\"hello\",\"role\":\"process\",\"protocol\":1,\"codecVersion\":" +
                       std::to_string(kCodecVersion) + ",\"instance\":" + jsonQuote(hello_.instance) +
                       ",\"pid\":" + std::to_string(hello_.pid) + ",\"ppid\":" + std::to_string(hello_.ppid) +
                       ",\"processName\":" + jsonQuote(hello_.processName) + ",\"originNs\":\"" +
                       std::to_string(hello_.originNs) + "\"";
    if (!runId_.empty()) json += ",\"runId\":" + jsonQuote(runId_);
    if (!hello_.title.empty()) json += ",\"title\":" + jsonQuote(hello_.title);
    return json + "}";
  }

  // Opens, says hello, reads the welcome; frames the server already holds are forgotten.
  std::string connect(bool& permanent) {
    std::string why = ws_.open(config_.socketPath, config_.url, "/api/profile", config_.token, kHandshakeMs);
    if (!why.empty()) return why;
    if (!ws_.sendText(helloJson(), kSendTimeoutMs)) return "the server closed the connection after the hello";
    std::string text;
    if (ws_.receiveText(text, kHandshakeMs) != 1) {
      ws_.close();
      return "no answer to the hello";
    }
    std::string type = jsonStringField(text, "type").value_or("");
    if (type == "refused") {
      permanent = true;
      ws_.close();
      return jsonStringField(text, "reason").value_or("the server refused this process");
    }
    auto runId = jsonStringField(text, "runId");
    auto nextSeq = jsonUintField(text, "nextSeq");
    if (type != "welcome" || !runId || !nextSeq) {
      permanent = true;
      ws_.close();
      return "the server answered the hello with " + text.substr(0, 200);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (*nextSeq > nextSeq_) {
      permanent = true;
      ws_.close();
      return "the server expects batch " + std::to_string(*nextSeq) + " but only " + std::to_string(nextSeq_) +
             " were made";
    }
    runId_ = *runId;
    dropBelow(static_cast<uint32_t>(*nextSeq));
    unsent_ = 0;
    byeSent_ = false;
    return "";
  }

  void dropBelow(uint32_t seq) {
    while (!frames_.empty() && frames_.front().seq < seq) {
      bytes_ -= frames_.front().batches.size();
      frames_.pop_front();
      if (unsent_ > 0) unsent_--;
    }
  }

  void fail(const std::string& why) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure_.empty()) failure_ = why;
    }
    ws_.close();
    wake_.notify_all();
  }

  bool sendFrame(const Frame& f) {
    std::vector<uint8_t> msg(10 + runId_.size() + f.batches.size());
    auto put32 = [&msg](size_t at, uint32_t v) {
      for (int i = 0; i < 4; i++) msg[at + i] = static_cast<uint8_t>((v >> (8 * i)) & 0xff);
    };
    put32(0, kLiveFrameMagic);
    put32(4, f.seq);
    msg[8] = static_cast<uint8_t>(runId_.size() & 0xff);
    msg[9] = static_cast<uint8_t>(runId_.size() >> 8);
    std::memcpy(msg.data() + 10, runId_.data(), runId_.size());
    if (!f.batches.empty()) std::memcpy(msg.data() + 10 + runId_.size(), f.batches.data(), f.batches.size());
    return ws_.sendBinary(msg.data(), msg.size(), kSendTimeoutMs);
  }

  void loop() {
    int64_t lostAtMs = -1;
    std::string lastError;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (done_ || !failure_.empty()) return;
      }
      if (!ws_.isOpen()) {
        if (lostAtMs < 0) lostAtMs = nowMs();
        if (nowMs() - lostAtMs > config_.reconnectMs) {
          fail("lost the server for " + std::to_string(config_.reconnectMs / 1000) + " s (" + lastError + ")");
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        bool permanent = false;
        std::string why = connect(permanent);
        if (permanent) {
          fail(why);
          return;
        }
        if (!why.empty()) {
          lastError = why;
          continue;
        }
        lostAtMs = -1;
      }
      sendPending();
      std::string text;
      int got = ws_.receiveText(text, kPollMs);
      if (got < 0) {
        lastError = "the connection closed";
        continue;
      }
      if (got == 1) onControl(text);
      std::lock_guard<std::mutex> lock(mutex_);
      if (finishing_ && byeSent_ && frames_.empty()) {
        done_ = true;
        ws_.close();
        wake_.notify_all();
        return;
      }
    }
  }

  void sendPending() {
    for (;;) {
      const Frame* f = nullptr;
      bool sendBye = false;
      std::string report;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (unsent_ < frames_.size()) {
          f = &frames_[unsent_];  // stays valid: only this thread removes frames
        } else if (finishing_ && !byeSent_) {
          sendBye = true;
          report = report_;
        } else {
          return;
        }
      }
      if (sendBye) {
        std::string bye = "{\"type\":\"bye\"" + std::string(report.empty() ? "" : ",") + report + "}";
        if (!ws_.sendText(bye, kSendTimeoutMs)) return;
        std::lock_guard<std::mutex> lock(mutex_);
        byeSent_ = true;
        return;
      }
      if (!sendFrame(*f)) return;
      std::lock_guard<std::mutex> lock(mutex_);
      unsent_++;
    }
  }

  void onControl(const std::string& text) {
    std::string type = jsonStringField(text, "type").value_or("");
    if (type == "ack") {
      auto seq = jsonUintField(text, "seq");
      if (seq) {
        std::lock_guard<std::mutex> lock(mutex_);
        dropBelow(static_cast<uint32_t>(*seq));
      }
    } else if (type == "stop") {
      // The dashboard's Stop: what Ctrl-C would do. The program decides how it ends.
      kill(getpid(), SIGINT);
    } else if (type == "refused") {
      fail(jsonStringField(text, "reason").value_or("the server ended this run"));
    }
  }

  const InjectConfig config_;
  const ProcessHello hello_;
  std::string runId_;
  WsClient ws_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Frame> frames_;  // not yet acknowledged, in seq order
  size_t unsent_ = 0;         // frames_[unsent_..] are not yet sent on this connection
  size_t bytes_ = 0;
  uint32_t nextSeq_ = 0;
  bool finishing_ = false;
  bool byeSent_ = false;
  bool done_ = false;
  std::string report_;
  std::string failure_;
};

}  // namespace

std::unique_ptr<Transport> openTransport(const InjectConfig& config, const ProcessHello& hello, std::string& error) {
  if (config.socketPath.empty() && config.url.empty()) {
    auto file = std::make_unique<FileTransport>(config.outPath);
    error = file->open();
    return error.empty() ? std::move(file) : nullptr;
  }
  auto socket = std::make_unique<SocketTransport>(config, hello);
  error = socket->start();
  if (!error.empty()) {
    error = "no server at " + (config.socketPath.empty() ? config.url : config.socketPath) + ": " + error;
    return nullptr;
  }
  return socket;
}

}  // namespace streamscope
