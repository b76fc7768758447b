"""A torch.compile'd block (Inductor: generated Triton kernels plus an extern matmul) under
torch.profiler. The first call compiles, outside the profiler; if compiling takes more than
COMPILE_LIMIT_S the trace is skipped (exit status 3), since this fixture must stay cheap to record.
Usage: python3 pt-compile.py OUT.json
"""
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile

COMPILE_LIMIT_S = 60.0


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(512)
        self.up = nn.Linear(512, 1024)
        self.down = nn.Linear(1024, 512)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


def main() -> None:
    out_path = sys.argv[1]
    dev = torch.device("cuda")
    torch.manual_seed(0)
    block = Block().to(dev).eval()
    compiled = torch.compile(block)
    x = torch.randn(256, 512, device=dev)
    t0 = time.monotonic()
    with torch.no_grad():
        compiled(x)
    torch.cuda.synchronize()
    compile_s = time.monotonic() - t0
    print(f"torch.compile first call {compile_s:.1f} s")
    if compile_s > COMPILE_LIMIT_S:
        print("compile too slow: no trace")
        sys.exit(3)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for _ in range(4):
            x = compiled(x)
        torch.cuda.synchronize()
    prof.export_chrome_trace(out_path)


main()
