"""Two ranks on ONE GPU through torch.distributed's gloo backend (NCCL refuses two ranks on one
device), each profiled into its own kineto trace, so each trace carries distributedInfo
(backend gloo, rank, world_size 2) and, through schedule(wait=0, warmup=1, active=3),
ProfilerStep#1..#3 ranges.

Each rank (a process started by torch.multiprocessing.spawn, both on cuda:0) runs a few steps
of matmul work and a gloo all_reduce of a CUDA tensor (gloo copies it to the host, reduces
there and copies the result back).
Usage: python3 pt-gloo.py OUT_DIR      (writes OUT_DIR/rank0.json and OUT_DIR/rank1.json)
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, schedule

WORLD = 2
STEPS = 4  # one warm-up step, then three recorded ones


def work(rank: int, out_dir: str) -> None:
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group(
        "gloo",
        init_method="tcp://127.0.0.1:29531",
        rank=rank,
        world_size=WORLD,
        timeout=timedelta(seconds=60),
    )
    dev = torch.device("cuda:0")
    torch.manual_seed(rank)
    a = torch.randn(1024, 1024, device=dev)
    w = torch.randn(1024, 1024, device=dev)
    grad = torch.zeros(1 << 18, device=dev)

    def step(i: int) -> None:
        h = torch.relu(a @ w)
        grad.copy_(h.flatten()[: grad.numel()] * (rank + 1))
        dist.all_reduce(grad)
        h.add_(grad.sum())

    step(0)  # warm-up: cuBLAS handle, gloo pairs
    torch.cuda.synchronize()
    dist.barrier()
    out_path = os.path.join(out_dir, f"rank{rank}.json")
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=0, warmup=1, active=3, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(out_path),
        record_shapes=True,
    ) as prof:
        for i in range(STEPS):
            step(i)
            if i == STEPS - 1:
                torch.cuda.synchronize()
            prof.step()
    dist.barrier()
    print(f"rank {rank} sum {float(grad.sum()):.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(work, args=(sys.argv[1],), nprocs=WORLD)
