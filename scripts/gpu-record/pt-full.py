"""A training loop with every torch.profiler option people turn on, and the GPU features they use.

The profiler runs with record_shapes, profile_memory, with_stack, with_flops and with_modules
(python_function ranges with their Python ids, [memory] instant events of the caching
allocator, FLOPs and module hierarchy in args) under schedule(wait=1, warmup=1, active=2), its
trace written by tensorboard_trace_handler (the file name a TensorBoard user has: HOST_PID.
<epoch ms>.pt.trace.json; this script renames it to OUT). Each step:
- a bf16 autocast forward and backward of an MLP on the default stream, inside a
  record_function range;
- a side stream that waits on an event recorded on the default stream, does its own matmul,
  records an event the default stream then waits on (cudaStreamWaitEvent both ways);
- a CUDA graph replay of a small captured MLP (cudaGraphLaunch: several kernels, one
  correlation id);
- an async HtoD copy from pinned memory, a memset, a DtoH copy of the loss (stream sync).
Usage: python3 pt-full.py OUT.json
"""
import glob
import os
import shutil
import sys
import tempfile

import torch
import torch.nn as nn
from torch.profiler import (
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)

BATCH = 64
WIDTH = 512


def main() -> None:
    out_path = sys.argv[1]
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(WIDTH, WIDTH * 2), nn.GELU(), nn.Linear(WIDTH * 2, 10)
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    host_x = torch.randn(BATCH, WIDTH).pin_memory()
    host_y = torch.randint(0, 10, (BATCH,)).pin_memory()
    side = torch.cuda.Stream()
    side_w = torch.randn(WIDTH, WIDTH, device=dev)
    scratch = torch.empty(1 << 20, dtype=torch.uint8, device=dev)

    # The graph: a small MLP captured once (on a side stream, as capture requires) and replayed.
    g_model = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH)).to(dev)
    g_in = torch.randn(BATCH, WIDTH, device=dev)
    warm = torch.cuda.Stream()
    warm.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(warm), torch.no_grad():
        for _ in range(3):
            g_model(g_in)
    torch.cuda.current_stream().wait_stream(warm)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        g_out = g_model(g_in)

    def step() -> float:
        with record_function("train_step"):
            x = host_x.to(dev, non_blocking=True)
            y = host_y.to(dev, non_blocking=True)
            scratch.zero_()
            ready = torch.cuda.Event()
            ready.record()
            with torch.cuda.stream(side):
                side.wait_event(ready)
                with record_function("side_matmul"):
                    s = x @ side_w
                    s.record_stream(side)
                done = torch.cuda.Event()
                done.record(side)
            torch.cuda.current_stream().wait_event(done)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(model(x + s), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            with record_function("graph_replay"):
                graph.replay()
            return loss.item() + float(g_out[0, 0])

    for _ in range(3):  # warm-up: cuBLAS handles, the caching allocator, lazy init
        step()
    torch.cuda.synchronize()
    out_dir = tempfile.mkdtemp(prefix="pt-full-")
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
        on_trace_ready=tensorboard_trace_handler(out_dir),
        record_shapes=True,
        profile_memory=True,
        with_stack=True,
        with_flops=True,
        with_modules=True,
    ) as prof:
        for i in range(5):
            print(f"step {i} loss {step():.4f}")
            prof.step()
    written = glob.glob(os.path.join(out_dir, "*.pt.trace.json"))
    if len(written) != 1:
        raise SystemExit(f"expected one trace from tensorboard_trace_handler, found {written}")
    print("handler wrote", os.path.basename(written[0]).split("_")[-1].split(".", 1)[1])
    shutil.move(written[0], out_path)
    shutil.rmtree(out_dir)


main()
