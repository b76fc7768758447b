// Reading plan fields out of JS objects with errors that name the field (binding layer only).
#pragma once

#include <napi.h>

#include <string>

#include "check.h"

namespace streamscope {

inline int64_t num(const Napi::Object& o, const char* key, int64_t fallback = 0) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber()) throw NativeError(std::string("plan field '") + key + "' must be a number");
  return v.As<Napi::Number>().Int64Value();
}

inline Napi::Array arr(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsArray()) throw NativeError(std::string("plan field '") + key + "' must be an array");
  return v.As<Napi::Array>();
}

struct Plan;
/** Reads plan.comms and plan.collectives (both optional) and checks every index they hold. */
void readCollectives(const Napi::Object& o, Plan& plan);

}  // namespace streamscope
