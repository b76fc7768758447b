// A test surface for RecordSink with no GPU: a script of issue, API, wait, GPU-record and drain
// steps drives a real sink, and the drained codec bytes come back to JS (addon.test.ts).
#pragma once

#include <napi.h>

namespace streamscope {

/** sinkScript(steps: Float64Array) -> { bytes: Uint8Array, unresolvedWaits, unmatched }. */
Napi::Value SinkScript(const Napi::CallbackInfo& info);

}  // namespace streamscope
