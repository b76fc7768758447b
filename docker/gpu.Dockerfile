# streamscope on a GPU host: builds the CUDA addon (nvcc + CUPTI from the devel image) and runs
# real workloads on the device; the simulator stays available beside it.
#   docker build -f docker/gpu.Dockerfile -t streamscope:gpu .
#   docker run --init --gpus all -p 5178:5178 -v streamscope-data:/data streamscope:gpu
# The toolkit must not be newer than the host driver supports (CUDA 13.0 needs driver >= 580).
ARG CUDA_IMAGE=nvidia/cuda:13.0.0-devel-ubuntu24.04
FROM node:20-bookworm-slim AS node

FROM ${CUDA_IMAGE}
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
RUN ln -s /usr/local/lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
  && apt-get update && apt-get install -y --no-install-recommends g++ make python3 \
  && rm -rf /var/lib/apt/lists/*

ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH CI=1 CUDA_HOME=/usr/local/cuda
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate

WORKDIR /app
COPY . .
# STREAMSCOPE_NATIVE_REQUIRED=1: a broken addon build fails the image instead of quietly
# falling back to the simulator.
RUN STREAMSCOPE_NATIVE_REQUIRED=1 pnpm install --frozen-lockfile && pnpm --filter @streamscope/web build
# The CLI's bundle, made once here (the server runs from it: README, the command line), and the
# allocator setting `pnpm streamscope` runs it with (apps/server/src/cli/allocator-env.ts).
RUN node apps/server/scripts/streamscope.mjs --help > /dev/null
ENV MALLOC_MMAP_THRESHOLD_=4194304

VOLUME /data
EXPOSE 5178
CMD ["node", "apps/server/scripts/streamscope.mjs", "serve", "--host", "0.0.0.0", "--port", "5178", "--data", "/data", "--backend", "auto"]
