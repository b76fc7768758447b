"""A CUDA graph captured with torch.cuda.graphs and replayed, with eager steps around it."""
import torch
import torch.nn as nn

dev = torch.device("cuda")
model = nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 256)).to(dev)
static_x = torch.randn(64, 256, device=dev)
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        model(static_x)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static_y = model(static_x)
torch.cuda.nvtx.range_push("replays")
for i in range(20):
    static_x.copy_(torch.randn(64, 256, device=dev))
    g.replay()
torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print(float(static_y.sum()))
