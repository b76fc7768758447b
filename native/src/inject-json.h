// The little JSON the injection collector writes (meta, structure, control messages) and reads
// (the server's control messages). The server's side is the validating one; this side only
// escapes what it writes and picks named fields out of the few flat objects it receives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace streamscope {

/** A JSON string literal, quoted; bytes outside printable ASCII become \u00XX or '?'. */
std::string jsonQuote(const std::string& value);

/** The string value of "key" in a flat JSON object, or nullopt (no escapes are decoded but \"). */
std::optional<std::string> jsonStringField(const std::string& json, const std::string& key);

/** The non-negative integer value of "key" in a flat JSON object, or nullopt. */
std::optional<uint64_t> jsonUintField(const std::string& json, const std::string& key);

}  // namespace streamscope
