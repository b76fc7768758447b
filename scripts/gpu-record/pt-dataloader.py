"""A DataLoader-bound training loop: the GPU idles while the host builds the next batch.

A small ResNet-18 (torchvision, 10 classes, 64x64 inputs) trains on a Dataset whose __getitem__
does about 1.5 ms of host work per sample (a Python loop and a sleep), so each batch of 24
costs ~36 ms on the host against a few ms of GPU work. num_workers=0 and pin_memory=True: the
batch is built and pinned inside enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__,
then copied with non_blocking=True (cudaMemcpyAsync from pinned memory). The profiler runs
schedule(wait=1, warmup=1, active=3, repeat=1), so the trace holds ProfilerStep#2..#4.
Usage: python3 pt-dataloader.py OUT.json
"""
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset

BATCH = 24
SAMPLES = BATCH * 8


class SlowDataset(Dataset):
    def __init__(self) -> None:
        g = torch.Generator().manual_seed(0)
        self.images = [torch.randn(3, 64, 64, generator=g) for _ in range(SAMPLES)]
        self.labels = [int(i % 10) for i in range(SAMPLES)]

    def __len__(self) -> int:
        return SAMPLES

    def __getitem__(self, i: int):
        acc = 0  # host work that holds the GIL, like decoding or augmenting would
        for k in range(6000):
            acc = (acc * 31 + k) % 1000003
        time.sleep(0.001)
        self.last_acc = acc
        return self.images[i], self.labels[i]


def main() -> None:
    out_path = sys.argv[1]
    import torchvision

    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(SlowDataset(), batch_size=BATCH, shuffle=False, num_workers=0, pin_memory=True)

    def train_step(x, y) -> None:
        x = x.to(dev, non_blocking=True)
        y = y.to(dev, non_blocking=True)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for x, y in loader:  # warm-up epoch: cuDNN heuristics, allocator, pinned pool
        train_step(x, y)
        break
    torch.cuda.synchronize()

    def on_ready(p) -> None:
        p.export_chrome_trace(out_path)

    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=on_ready,
        record_shapes=True,
        with_stack=False,
    ) as prof:
        for step, (x, y) in enumerate(loader):
            if step >= 5:
                break
            train_step(x, y)
            prof.step()
    torch.cuda.synchronize()
    print("dataloader trace written", out_path)


main()
