"""Data-parallel training on two GPUs, DDP or FSDP: gradient communication overlaps backward.

An MLP of 8 Linear(4096, 4096) + ReLU layers (134M parameters, 537 MB of fp32 gradients), batch
256, SGD, one process per GPU (rank r on cuda:r), NCCL over NVLink with multicast off.
DDP (the default): DistributedDataParallel all-reduces each 25 MB gradient bucket as soon as
backward has filled it, on NCCL's stream, while backward goes on computing earlier layers on
the default stream: the communication/compute overlap people look for in a DDP trace.
--fsdp: FSDP2 (fully_shard on each Linear, then on the model): each layer's parameters are
all-gathered before its forward and again before its backward (resharded after forward), and its
gradients reduce-scattered after its backward, the next layer's all-gather prefetched meanwhile.
Each rank writes OUT_DIR/ddp2gpu-rank<r>.json (fsdp2gpu-rank<r>.json with --fsdp; torch.profiler,
CPU + CUDA, schedule(wait=0, warmup=1, active=3)) unless --plain, which records nothing itself
and marks each step with an NVTX range (for nsys).
Under torchrun (RANK and WORLD_SIZE set: torchrun --nproc_per_node 2 pt-ddp.py ...) each
worker runs its own rank instead of spawning both.
Usage: python3 pt-ddp.py [--fsdp] [--plain] OUT_DIR
"""
import os
import sys
from datetime import timedelta

STEPS = 3
WIDTH = 4096
LAYERS = 8
BATCH = 256


def work(rank: int, world: int, plain: bool, out_dir: str, fsdp: bool = False) -> None:
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # never multicast, whatever the machine
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ.setdefault("NCCL_DEBUG", "WARN")
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    dev = torch.device(f"cuda:{rank}")
    torch.cuda.set_device(dev)
    dist.init_process_group(
        "nccl",
        # Under torchrun its agent holds the store (env://); spawned here, rank 0 does.
        init_method="env://" if "TORCHELASTIC_RUN_ID" in os.environ else "tcp://127.0.0.1:29571",
        rank=rank,
        world_size=world,
        timeout=timedelta(seconds=90),
        device_id=dev,
    )
    torch.manual_seed(0)
    layers = []
    for _ in range(LAYERS):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    if fsdp:
        from torch.distributed.fsdp import fully_shard

        model = nn.Sequential(*layers).to(dev)
        for layer in model:
            if isinstance(layer, nn.Linear):
                fully_shard(layer)
        fully_shard(model)
    else:
        model = DDP(nn.Sequential(*layers).to(dev), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    torch.manual_seed(rank)
    x = torch.randn(BATCH, WIDTH, device=dev)
    y = torch.randn(BATCH, WIDTH, device=dev)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()  # DDP all-reduces each bucket as it fills; FSDP reduce-scatters each layer
        opt.step()

    for _ in range(3):  # warm-up: NCCL communicators, cuBLAS, DDP's buckets, FSDP's buffers
        step()
    torch.cuda.synchronize()
    dist.barrier()
    if plain:
        for i in range(STEPS):
            torch.cuda.nvtx.range_push(f"step {i}")
            step()
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    else:
        name = "fsdp2gpu" if fsdp else "ddp2gpu"
        out_path = os.path.join(out_dir, f"{name}-rank{rank}.json")
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
            schedule=schedule(wait=0, warmup=1, active=STEPS, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(out_path),
        ) as prof:
            for i in range(STEPS + 1):
                step()
                if i == STEPS:
                    torch.cuda.synchronize()
                prof.step()
    dist.barrier()
    print(f"rank {rank} done")
    dist.destroy_process_group()


def main() -> None:
    args = sys.argv[1:]
    plain = "--plain" in args
    fsdp = "--fsdp" in args
    out_dir = args[-1]
    if "RANK" in os.environ:  # a torchrun worker: one rank of the job
        work(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), plain, out_dir, fsdp)
        return
    import torch.multiprocessing as mp

    mp.spawn(work, args=(2, plain, out_dir, fsdp), nprocs=2)


if __name__ == "__main__":
    main()
