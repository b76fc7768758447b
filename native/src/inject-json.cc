#include "inject-json.h"

#include <cstdio>

namespace streamscope {

std::string jsonQuote(const std::string& value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else if (c >= 0x80) {
      out += '?';  // names are ASCII in practice; never emit a broken UTF-8 sequence
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

// Position just after `"key":` (whitespace skipped), or npos.
size_t valueAt(const std::string& json, const std::string& key) {
  std::string quoted = "\"" + key + "\"";
  size_t at = json.find(quoted);
  while (at != std::string::npos) {
    size_t p = at + quoted.size();
    while (p < json.size() && (json[p] == ' ' || json[p] == '\t' || json[p] == '\n' || json[p] == '\r')) p++;
    if (p < json.size() && json[p] == ':') {
      p++;
      while (p < json.size() && (json[p] == ' ' || json[p] == '\t' || json[p] == '\n' || json[p] == '\r')) p++;
      return p;
    }
    at = json.find(quoted, at + 1);
  }
  return std::string::npos;
}

}  // namespace

std::optional<std::string> jsonStringField(const std::string& json, const std::string& key) {
  size_t p = valueAt(json, key);
  if (p == std::string::npos || p >= json.size() || json[p] != '"') return std::nullopt;
  std::string out;
  for (size_t i = p + 1; i < json.size(); i++) {
    char c = json[i];
    if (c == '"') return out;
    if (c == '\\' && i + 1 < json.size()) {
      c = json[++i];
      if (c != '"' && c != '\\' && c != '/') out += '\\';
    }
    out += c;
  }
  return std::nullopt;
}

std::optional<uint64_t> jsonUintField(const std::string& json, const std::string& key) {
  size_t p = valueAt(json, key);
  if (p == std::string::npos || p >= json.size() || json[p] < '0' || json[p] > '9') return std::nullopt;
  uint64_t v = 0;
  while (p < json.size() && json[p] >= '0' && json[p] <= '9') {
    v = v * 10 + static_cast<uint64_t>(json[p] - '0');
    p++;
  }
  return v;
}

}  // namespace streamscope
