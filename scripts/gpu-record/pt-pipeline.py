"""Pipeline-parallel training on two GPUs: a 2-stage GPipe schedule over NCCL send/recv.

An MLP of Linear(4096, 4096) + ReLU layers cut in two stages, rank r holding stage r on cuda:r
(4 layers each by default; --layers A,B gives stage 0 A layers and stage 1 B). Each step splits
a batch of 1024 into 4 microbatches of 256 and runs GPipe: stage 0 runs the forward of every
microbatch and sends each output (4 MB of fp32 activations) to stage 1 with dist.isend; stage 1
receives each with dist.irecv, runs its forward and the loss; then every backward, stage 1
sending the gradient of its input back to stage 0. A wait() on a receive makes the compute
stream wait for NCCL's, not the host, so each stage's GPU spins in the receive kernel
(ncclDevKernel_SendRecv) until the other stage has sent: stage 1 waits for stage 0's first
forward, stage 0 for stage 1's first backward — the pipeline's bubble, (p - 1) / (m + p - 1) =
1/5 of a step for p = 2 stages and m = 4 microbatches — and a stage with more layers makes the
other wait longer each microbatch. SGD on each stage, no collective at all.
Each microbatch's forward and backward is a named range (record_function, NVTX under --plain).
Each rank writes OUT_DIR/<name>-rank<r>.json (torch.profiler, CPU + CUDA,
schedule(wait=0, warmup=1, active=3)); name is pp2gpu, or pp2gpu-a-b with --layers a,b. With
--plain it records nothing itself and marks each step with an NVTX range (for nsys).
Launched by torchrun, one process per stage:
  torchrun --standalone --nproc_per_node 2 pt-pipeline.py [--layers A,B] [--plain] OUT_DIR
"""
import os
import sys
from datetime import timedelta

STEPS = 3
WIDTH = 4096
MICROBATCH = 256
MICROBATCHES = 4


def work(rank: int, world: int, layer_counts: tuple, plain: bool, out_dir: str) -> None:
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # never multicast, whatever the machine
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ.setdefault("NCCL_DEBUG", "WARN")
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    assert world == 2, "two stages, one per rank"
    dev = torch.device(f"cuda:{rank}")
    torch.cuda.set_device(dev)
    dist.init_process_group(
        "nccl", init_method="env://", timeout=timedelta(seconds=90), device_id=dev
    )
    first, last = rank == 0, rank == world - 1
    torch.manual_seed(rank)
    layers = []
    for _ in range(layer_counts[rank]):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    stage = nn.Sequential(*layers).to(dev)
    opt = torch.optim.SGD(stage.parameters(), lr=1e-4)
    x = torch.randn(MICROBATCHES, MICROBATCH, WIDTH, device=dev)
    y = torch.randn(MICROBATCHES, MICROBATCH, WIDTH, device=dev)

    def mark(name: str):
        # Under nsys an NVTX range; under torch.profiler a user annotation (CPU and GPU lanes).
        if plain:
            return torch.cuda.nvtx.range(name)
        return record_function(name)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        inputs, outputs, sends = [], [], []
        for mb in range(MICROBATCHES):  # GPipe: every forward first
            with mark(f"forward mb{mb}"):
                if first:
                    inp = x[mb]
                else:
                    inp = torch.empty(MICROBATCH, WIDTH, device=dev)
                    dist.irecv(inp, src=rank - 1).wait()  # the GPU waits, not the host
                    inp.requires_grad_()
                out = stage(inp)
                if last:
                    out = nn.functional.mse_loss(out, y[mb])
                else:
                    sends.append(dist.isend(out.detach(), dst=rank + 1))
                inputs.append(inp)
                outputs.append(out)
        for mb in range(MICROBATCHES):  # then every backward, in the same order
            with mark(f"backward mb{mb}"):
                if last:
                    outputs[mb].backward()
                else:
                    grad = torch.empty(MICROBATCH, WIDTH, device=dev)
                    dist.irecv(grad, src=rank + 1).wait()
                    outputs[mb].backward(grad)
                if not first:
                    sends.append(dist.isend(inputs[mb].grad, dst=rank - 1))
        for s in sends:
            s.wait()
        opt.step()

    for _ in range(3):  # warm-up: the p2p communicator, cuBLAS
        step()
    torch.cuda.synchronize()
    dist.barrier()
    name = "pp2gpu" if layer_counts == (4, 4) else "pp2gpu-%d-%d" % layer_counts
    if plain:
        for i in range(STEPS):
            torch.cuda.nvtx.range_push(f"step {i}")
            step()
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
    else:
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
    layer_counts = (4, 4)
    if "--layers" in args:
        a, b = args[args.index("--layers") + 1].split(",")
        layer_counts = (int(a), int(b))
    work(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), layer_counts, plain, args[-1])


if __name__ == "__main__":
    main()
