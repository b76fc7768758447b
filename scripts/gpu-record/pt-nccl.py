"""NCCL collectives interleaved with matmuls on the default stream, for the communication class.

--world 1: one process, a world_size-1 NCCL process group. NCCL short-cuts one rank: an in-place
  SUM all_reduce launches nothing, out-of-place collectives become a device-to-device copy, an AVG
  all_reduce runs NCCL's one-rank reduce kernel and all_to_all runs as a send/recv to itself.
--world 2: two processes on the one GPU. NCCL refuses two ranks on one device of one host, so each
  rank names a different NCCL_HOSTID and the ranks talk over NCCL's socket transport on loopback:
  real two-rank ring kernels (ncclDevKernel_*) on one GPU, slow but genuine.
--world 2 --gpus: two processes on two GPUs (rank r on cuda:r), NCCL's own transports (P2P over
  NVLink on the H200 machines; multicast stays off): a real two-GPU job.
Each rank writes OUT_DIR/nccl<world>[gpu]-rank<rank>.json (torch.profiler, CPU + CUDA, schedule(wait=0,
warmup=1, active=3) so ProfilerStep#1..#3 ranges exist) unless --plain, which records nothing
itself and marks each step with an NVTX range (for nsys).
Usage: python3 pt-nccl.py --world 1|2 [--gpus] [--plain] OUT_DIR
"""
import os
import sys
from datetime import timedelta

STEPS = 3  # recorded steps (the profiler's schedule adds one warm-up step before them)
PORTS = {1: 29551, 2: 29561}


def nccl_env(world: int, rank: int, gpus: bool) -> None:
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # never multicast, whatever the machine
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ.setdefault("NCCL_DEBUG", "WARN")
    if world > 1 and not gpus:
        os.environ["NCCL_HOSTID"] = f"streamscope-rank{rank}"
        os.environ["NCCL_SOCKET_IFNAME"] = "lo"
        os.environ["NCCL_NET"] = "Socket"
        os.environ["NCCL_IB_DISABLE"] = "1"
        os.environ["NCCL_P2P_DISABLE"] = "1"
        os.environ["NCCL_SHM_DISABLE"] = "1"


def work(rank: int, world: int, plain: bool, out_dir: str, gpus: bool = False) -> None:
    nccl_env(world, rank, gpus)
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, schedule

    dev = torch.device(f"cuda:{rank}" if gpus else "cuda:0")
    torch.cuda.set_device(dev)
    dist.init_process_group(
        "nccl",
        init_method=f"tcp://127.0.0.1:{PORTS[world]}",
        rank=rank,
        world_size=world,
        timeout=timedelta(seconds=90),
        device_id=dev,
    )
    torch.manual_seed(rank)
    a = torch.randn(1024, 1024, device=dev)
    w = torch.randn(1024, 1024, device=dev)
    n = 1 << 18
    buf = torch.randn(n, device=dev)
    gathered = torch.empty(n * world, device=dev)
    shard = torch.empty(n, device=dev)  # reduce_scatter: gathered holds world shards of n
    swapped = torch.empty(n, device=dev)
    bcast = torch.randn(4096, device=dev)

    def avg() -> None:
        dist.all_reduce(buf, op=dist.ReduceOp.AVG)

    def to_all() -> None:
        dist.all_to_all_single(swapped, buf)

    optional = []  # kept only if the first (warm-up) call works on this build
    for op in (avg, to_all):
        try:
            op()
            torch.cuda.synchronize()
            optional.append(op)
        except (RuntimeError, ValueError) as err:
            print(f"rank {rank}: {op.__name__} left out: {err}")

    def step(i: int) -> None:
        h = torch.relu(a @ w)
        buf.copy_(h.flatten()[:n])
        dist.all_reduce(buf)  # SUM, in place
        h = h @ w
        if avg in optional:
            avg()
        dist.all_gather_into_tensor(gathered, buf)
        h = torch.tanh(h @ w)
        dist.reduce_scatter_tensor(shard, gathered)
        if to_all in optional:
            to_all()
        work_ = dist.all_reduce(swapped, async_op=True)  # overlaps the next matmul
        h = h @ w
        work_.wait()
        dist.broadcast(bcast, src=0)
        buf.add_(h.flatten()[:n])

    step(0)  # warm-up: communicator, NCCL streams, cuBLAS
    torch.cuda.synchronize()
    dist.barrier()
    if plain:
        for i in range(STEPS):
            torch.cuda.nvtx.range_push(f"step {i}")
            step(i)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    else:
        out_path = os.path.join(out_dir, f"nccl{world}{'gpu' if gpus else ''}-rank{rank}.json")
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
            schedule=schedule(wait=0, warmup=1, active=3, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(out_path),
            record_shapes=True,
        ) as prof:
            for i in range(STEPS + 1):
                step(i)
                if i == STEPS:
                    torch.cuda.synchronize()
                prof.step()
    dist.barrier()
    print(f"world {world} rank {rank} checksum {float(buf.sum()):.3f}")
    dist.destroy_process_group()


def main() -> None:
    args = sys.argv[1:]
    world = int(args[args.index("--world") + 1])
    plain = "--plain" in args
    gpus = "--gpus" in args
    out_dir = args[-1]
    if world == 1:
        work(0, 1, plain, out_dir)
    else:
        import torch.multiprocessing as mp

        mp.spawn(work, args=(world, plain, out_dir, gpus), nprocs=world)


if __name__ == "__main__":
    main()
