"""Two processes on one GPU, each with a side stream: correlation ids repeat across processes."""
import torch
import torch.multiprocessing as mp


def work(rank: int) -> None:
    dev = torch.device("cuda")
    x = torch.randn(1 << 16, device=dev)
    side = torch.cuda.Stream()
    torch.cuda.nvtx.range_push(f"rank {rank}")
    for _ in range(50):
        x = x * 1.0001 + 1
        with torch.cuda.stream(side):
            y = x.sum()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(rank, float(y))


if __name__ == "__main__":
    mp.spawn(work, nprocs=2)
