#!/usr/bin/env python3
"""A PyTorch training loop for `streamscope profile`: what a real program's streams look like.

Each step copies the next batch from pinned memory on a side stream (non_blocking=True), hands it
to the compute stream through a torch.cuda.Event (record on the side stream, wait on the main
one), runs forward and backward of a small MLP in bf16, steps the optimizer, replays a CUDA graph
captured from an inference pass, and clears a scratch buffer with cudaMemsetAsync. NVTX ranges
(torch.cuda.nvtx.range) name every phase.

usage: torch_streams.py [--steps N] [--width W] [--batch B]
Prints one line: steps, loop wall time in ms (after a warm-up), and a checksum.
"""
import argparse
import ctypes
import time

import torch


def cuda_memset_async():
    """cudaMemsetAsync from the CUDA runtime PyTorch already loaded (PyTorch's own zeroing is a kernel)."""
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        fn = lib.cudaMemsetAsync
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        return fn
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    device = torch.device("cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.width, args.width),
        torch.nn.GELU(),
        torch.nn.Linear(args.width, args.width),
        torch.nn.GELU(),
        torch.nn.Linear(args.width, args.width),
    ).to(device=device, dtype=torch.bfloat16)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    batches = [
        torch.randn(args.batch, args.width, dtype=torch.bfloat16).pin_memory() for _ in range(4)
    ]
    copy_stream = torch.cuda.Stream()
    compute = torch.cuda.current_stream()
    scratch = torch.empty(64 << 20, dtype=torch.uint8, device=device)
    memset = cuda_memset_async()

    # A CUDA graph of an inference pass, captured once on a side stream and replayed every step.
    static_in = torch.zeros(args.batch, args.width, dtype=torch.bfloat16, device=device)
    capture_stream = torch.cuda.Stream()
    capture_stream.wait_stream(compute)
    with torch.cuda.stream(capture_stream), torch.no_grad():
        for _ in range(2):
            model(static_in)  # warm up the kernels before capture
    compute.wait_stream(capture_stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        static_out = model(static_in)

    def step(i):
        with torch.cuda.nvtx.range(f"step {i}"):
            with torch.cuda.nvtx.range("h2d"), torch.cuda.stream(copy_stream):
                x = batches[i % len(batches)].to(device, non_blocking=True)
                ready = torch.cuda.Event()
                ready.record(copy_stream)
            compute.wait_event(ready)
            x.record_stream(compute)
            with torch.cuda.nvtx.range("forward"):
                loss = model(x).float().pow(2).mean()
            with torch.cuda.nvtx.range("backward"):
                loss.backward()
            with torch.cuda.nvtx.range("optimizer"):
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            with torch.cuda.nvtx.range("graph"):
                static_in.copy_(x)
                graph.replay()
            if memset is not None:
                memset(scratch.data_ptr(), 0, scratch.numel(), compute.cuda_stream)
            return loss

    for i in range(args.warmup):
        step(i)
    torch.cuda.synchronize()
    start = time.perf_counter()
    checksum = 0.0
    for i in range(args.steps):
        loss = step(i)
        if i % 50 == 49:
            checksum += loss.item()  # a device-to-host copy and a sync, as real loops log
    torch.cuda.synchronize()
    wall_ms = (time.perf_counter() - start) * 1000
    checksum += float(static_out.float().sum().item())
    print(f"torch_streams: {args.steps} steps, loop {wall_ms:.1f} ms, checksum {checksum:.4f}", flush=True)


if __name__ == "__main__":
    main()
