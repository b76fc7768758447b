"""About 25,000 small kernels on two streams, for the import benchmark."""
import torch

dev = torch.device("cuda")
a = torch.zeros(1024, device=dev)
b = torch.zeros(1024, device=dev)
s = torch.cuda.Stream()
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("many kernels")
for i in range(12_000):
    a.add_(1.0)
    if i % 1000 == 999:
        torch.cuda.nvtx.range_push(f"block {i // 1000}")
        torch.cuda.nvtx.range_pop()
with torch.cuda.stream(s):
    for i in range(12_000):
        b.mul_(1.0001)
torch.cuda.synchronize()
b.zero_()
torch.cuda.nvtx.range_pop()
print(float(a[0]), float(b[0]))
