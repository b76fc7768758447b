#!/usr/bin/env python3
"""A program that forks after CUDA is initialized (as DataLoader workers with fork do): the child
never touches CUDA and leaves through os._exit; the parent goes on launching kernels. Under
`streamscope profile` the child's copy of the collector must stay silent and the run must hold
the parent's work. Prints one line with the child's exit status and a checksum."""
import os

import torch

x = torch.ones(1 << 20, device="cuda")
torch.cuda.synchronize()
pid = os.fork()
if pid == 0:
    os._exit(7)  # no atexit, as a worker that ends abruptly
_, status = os.waitpid(pid, 0)
for _ in range(50):
    x = x * 1.0001 + 1
torch.cuda.synchronize()
print(f"fork_after_cuda: child exited {os.waitstatus_to_exitcode(status)}, checksum {x.sum().item():.1f}", flush=True)
