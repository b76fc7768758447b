"""A small training loop with a side stream and NVTX ranges, for real nsys/kineto fixtures.

The side stream prefetches the next batch from pinned host memory while the default stream
trains on the current one; wait_stream / record_stream give event record -> wait links.
Usage: python3 train.py [--kineto OUT.json]
"""
import sys

import torch
import torch.nn as nn

STEPS = 12
BATCH = 256


def main() -> None:
    kineto_out = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--kineto" else None
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    side = torch.cuda.Stream(priority=-1)
    host_x = [torch.randn(BATCH, 512).pin_memory() for _ in range(4)]
    host_y = [torch.randint(0, 10, (BATCH,)).pin_memory() for _ in range(4)]
    pageable = torch.randn(BATCH, 512)

    def load(i: int):
        with torch.cuda.stream(side):
            torch.cuda.nvtx.range_push(f"prefetch {i}")
            x = host_x[i % 4].to(dev, non_blocking=True)
            y = host_y[i % 4].to(dev, non_blocking=True)
            torch.cuda.nvtx.range_pop()
        return x, y

    def run() -> None:
        nxt = load(0)
        for step in range(STEPS):
            torch.cuda.nvtx.range_push(f"step {step}")
            torch.cuda.current_stream().wait_stream(side)
            x, y = nxt
            x.record_stream(torch.cuda.current_stream())
            y.record_stream(torch.cuda.current_stream())
            if step + 1 < STEPS:
                nxt = load(step + 1)
            torch.cuda.nvtx.range_push("forward")
            loss = nn.functional.cross_entropy(model(x), y)
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_push("backward")
            opt.zero_grad(set_to_none=False)
            loss.backward()
            opt.step()
            torch.cuda.nvtx.range_pop()
            if step % 4 == 3:
                _ = pageable.to(dev)  # a pageable, synchronous copy
                print(f"step {step} loss {loss.item():.3f}")  # DtoH + stream sync
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()

    run()  # warm-up outside the profiler window is fine: nsys records it too
    if kineto_out is not None:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            run()
        prof.export_chrome_trace(kineto_out)


main()
