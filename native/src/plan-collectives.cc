// plan.comms and plan.collectives out of JS (native/index.d.ts: NativePlan): every index is
// checked here, so the issue threads never see a part that names a missing stream or buffer.
#include <algorithm>

#include "napi-fields.h"
#include "plan.h"

namespace streamscope {

namespace {

constexpr size_t kPartStride = 8;  // call, stream, sendBuffer, sendOffset, recvBuffer, recvOffset, rank, peer

void need(bool ok, const std::string& message) {
  if (!ok) throw NativeError(message);
}

}  // namespace

void readCollectives(const Napi::Object& o, Plan& plan) {
  if (o.Get("comms").IsUndefined() && o.Get("collectives").IsUndefined()) return;
  Napi::Array comms = arr(o, "comms");
  for (uint32_t i = 0; i < comms.Length(); i++) {
    std::string at = "comms[" + std::to_string(i) + "]";
    Napi::Array devices = arr(comms.Get(i).As<Napi::Object>(), "devices");
    PlanComm comm;
    for (uint32_t k = 0; k < devices.Length(); k++) {
      int d = devices.Get(k).As<Napi::Number>().Int32Value();
      need(std::find(plan.devices.begin(), plan.devices.end(), d) != plan.devices.end(),
           at + ".devices[" + std::to_string(k) + "]: device " + std::to_string(d) + " is not in plan.devices");
      need(std::find(comm.devices.begin(), comm.devices.end(), d) == comm.devices.end(),
           at + ": device " + std::to_string(d) + " is listed twice");
      comm.devices.push_back(d);
    }
    need(!comm.devices.empty(), at + ": a communicator needs at least one device");
    plan.comms.push_back(std::move(comm));
  }
  Napi::Array collectives = arr(o, "collectives");
  for (uint32_t i = 0; i < collectives.Length(); i++) {
    std::string at = "collectives[" + std::to_string(i) + "]";
    Napi::Object c = collectives.Get(i).As<Napi::Object>();
    PlanCollective pc;
    pc.comm = static_cast<int>(num(c, "comm", -1));
    need(pc.comm >= 0 && static_cast<size_t>(pc.comm) < plan.comms.size(), at + ".comm does not exist");
    pc.count = num(c, "count");
    pc.dtype = static_cast<int>(num(c, "dtype"));
    pc.reduce = static_cast<int>(num(c, "reduce"));
    pc.root = static_cast<int>(num(c, "root"));
    need(pc.count > 0, at + ".count must be positive");
    need(pc.dtype >= 0 && pc.dtype <= 9, at + ".dtype must be an ncclDataType_t (0..9)");
    need(pc.reduce >= 0 && pc.reduce <= 4, at + ".reduce must be an ncclRedOp_t (0..4)");
    const PlanComm& comm = plan.comms[static_cast<size_t>(pc.comm)];
    int ranks = static_cast<int>(comm.devices.size());
    need(pc.root >= 0 && pc.root < ranks, at + ".root must be a rank of the communicator");
    Napi::Value v = c.Get("parts");
    need(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array,
         at + ".parts must be a Float64Array");
    Napi::Float64Array f = v.As<Napi::Float64Array>();
    need(f.ElementLength() > 0 && f.ElementLength() % kPartStride == 0,
         at + ".parts length must be a positive multiple of 8");
    for (size_t p = 0; p < f.ElementLength() / kPartStride; p++) {
      const double* x = f.Data() + p * kPartStride;
      std::string pat = at + ".parts[" + std::to_string(p) + "]";
      PlanCollectivePart part;
      int call = static_cast<int>(x[0]);
      need(call >= 0 && call <= 5, pat + ": call must be 0..5");
      part.call = static_cast<CollectiveCall>(call);
      part.stream = static_cast<int>(x[1]);
      part.sendBuffer = static_cast<int>(x[2]);
      part.sendOffset = static_cast<int64_t>(x[3]);
      part.recvBuffer = static_cast<int>(x[4]);
      part.recvOffset = static_cast<int64_t>(x[5]);
      part.rank = static_cast<int>(x[6]);
      part.peer = static_cast<int>(x[7]);
      need(part.stream >= 0 && static_cast<size_t>(part.stream) < plan.streams.size(), pat + ": stream does not exist");
      need(part.rank >= 0 && part.rank < ranks, pat + ": rank is not in the communicator");
      int device = comm.devices[static_cast<size_t>(part.rank)];
      need(plan.streams[static_cast<size_t>(part.stream)].device == device,
           pat + ": the stream is not on the rank's device " + std::to_string(device));
      bool p2p = part.call == CollectiveCall::Send || part.call == CollectiveCall::Recv;
      need(!p2p || (part.peer >= 0 && part.peer < ranks && part.peer != part.rank),
           pat + ": peer must be another rank of the communicator");
      for (int buffer : {part.sendBuffer, part.recvBuffer}) {
        if (buffer < 0) continue;
        need(static_cast<size_t>(buffer) < plan.buffers.size(), pat + ": buffer " + std::to_string(buffer) + " does not exist");
        const PlanBuffer& b = plan.buffers[static_cast<size_t>(buffer)];
        need(b.device == device && (b.kind == BufferKind::Device || b.kind == BufferKind::StreamOrdered),
             pat + ": buffer " + std::to_string(buffer) + " is not device memory on the rank's device");
      }
      need(part.call == CollectiveCall::Recv || part.sendBuffer >= 0, pat + ": a send buffer is needed");
      need(part.call == CollectiveCall::Send || part.recvBuffer >= 0, pat + ": a receive buffer is needed");
      pc.parts.push_back(part);
    }
    plan.collectives.push_back(std::move(pc));
  }
}

}  // namespace streamscope
