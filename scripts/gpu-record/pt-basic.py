"""A small training loop under torch.profiler (CPU + CUDA activities, record_shapes on,
with_stack off), exported as-is by prof.export_chrome_trace: the plain PyTorch 2.x kineto form.

A conv + linear model, AdamW (foreach kernels) and a loss.item() every step (DtoH copy and a
stream synchronize). No schedule: prof.step() is called, but PyTorch writes ProfilerStep#N
ranges only when the profiler has a schedule (see pt-dataloader.py), so this trace has none.
Usage: python3 pt-basic.py OUT.json
"""
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile

STEPS = 4
BATCH = 64


def main() -> None:
    out_path = sys.argv[1]
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(4),
        nn.Flatten(),
        nn.Linear(16 * 16, 10),
    ).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    host_x = torch.randn(BATCH, 3, 32, 32).pin_memory()
    host_y = torch.randint(0, 10, (BATCH,)).pin_memory()

    def step() -> float:
        x = host_x.to(dev, non_blocking=True)
        y = host_y.to(dev, non_blocking=True)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(3):  # warm-up: cuDNN/cuBLAS handles, the caching allocator, lazy init
        step()
    torch.cuda.synchronize()
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        record_shapes=True,
        with_stack=False,
    ) as prof:
        for i in range(STEPS):
            print(f"step {i} loss {step():.4f}")
            prof.step()
    prof.export_chrome_trace(out_path)


main()
