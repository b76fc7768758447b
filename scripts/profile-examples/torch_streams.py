#!/usr/bin/env python3
"""A PyTorch training loop for `streamscope profile`: what a real program's streams look like.

Each step copies the next batch from pinned memory on a side stream (non_blocking=True), hands it
to the compute stream through a torch.cuda.Event (record on the side stream, wait on the main
one), runs forward and backward of a small MLP in bf16, steps the optimizer, replays a CUDA graph
captured from an inference pass, and clears a scratch buffer with cudaMemsetAsync. NVTX ranges
(torch.cuda.nvtx.range) name every phase.

usage: torch_streams.py [--steps N] [--width W] [--batch B] [--layers L] [--gpu-bound]
As shipped (3 layers of 4096, batch 2048) a step is about 1.6 ms on an H100 with some 40 GPU ops:
the host's launches, not the GPU, set its pace. --gpu-bound sizes the model like a real training
step (8 layers of 8192, batch 8192: tens of ms of GEMMs per step), so the GPU sets the pace.
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
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--gpu-bound", action="store_true")
    args = parser.parse_args()
    if args.gpu_bound:
        args.width, args.batch, args.layers = 8192, 8192, 8

    device = torch.device("cuda")
    torch.manual_seed(0)
    # --gpu-bound builds its GBs of weights and batches on the GPU (seconds less of CPU set-up);
    # the shipped size keeps its CPU initialisation, and so its checksum.
    init_device = device if args.gpu_bound else None
    layers = []
    for i in range(args.layers):
        if i > 0:
            layers.append(torch.nn.GELU())
        layers.append(torch.nn.Linear(args.width, args.width, device=init_device))
    model = torch.nn.Sequential(*layers).to(device=device, dtype=torch.bfloat16)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    batches = [
        torch.randn(args.batch, args.width, dtype=torch.bfloat16, device=init_device).cpu().pin_memory()
        for _ in range(4)
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
