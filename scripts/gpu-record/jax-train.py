"""A small JAX training loop for Nsight Systems: what a JAX user records with `nsys profile`.

A jitted SGD step of a 3-layer MLP (1024 wide, batch 256) with its gradient (jax.grad), run 20
times after a compile step, then a device_get of the loss. XLA fuses the step into a few
kernels (cuBLAS gemms and fusions) and may launch them as a CUDA graph; its NVTX ranges name the
jitted computations. Usage: python3 jax-train.py
"""
import jax
import jax.numpy as jnp

WIDTH = 1024
BATCH = 256


def init(key):
    keys = jax.random.split(key, 3)
    return [jax.random.normal(k, (WIDTH, WIDTH)) * 0.02 for k in keys]


def loss_fn(params, x, y):
    h = x
    for w in params[:-1]:
        h = jax.nn.relu(h @ w)
    return jnp.mean((h @ params[-1] - y) ** 2)


@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return [w - 1e-3 * g for w, g in zip(params, grads)], loss


def main() -> None:
    key = jax.random.PRNGKey(0)
    params = init(key)
    x = jax.random.normal(key, (BATCH, WIDTH))
    y = jax.random.normal(jax.random.PRNGKey(1), (BATCH, WIDTH))
    params, loss = step(params, x, y)  # compile
    loss.block_until_ready()
    for _ in range(20):
        params, loss = step(params, x, y)
    print("loss", float(jax.device_get(loss)))


main()
