# streamscope on a host without a GPU: the simulator and replay backends, uploads and analysis.
#   docker build -f docker/cpu.Dockerfile -t streamscope:cpu .
#   docker run --init -p 5178:5178 -v streamscope-data:/data streamscope:cpu
FROM node:20-bookworm-slim

ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH CI=1
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate

WORKDIR /app
COPY . .
# No nvcc here: the native addon's optional build says why it is skipped and the simulator serves.
RUN pnpm install --frozen-lockfile && pnpm --filter @streamscope/web build
# The CLI's bundle, made once here (the server runs from it: README, the command line), and the
# allocator setting `pnpm streamscope` runs it with (apps/server/src/cli/allocator-env.ts).
RUN node apps/server/scripts/streamscope.mjs --help > /dev/null
ENV MALLOC_MMAP_THRESHOLD_=4194304

# Beyond loopback the server requires a token: it prints one at start, or set STREAMSCOPE_TOKEN.
RUN mkdir /data && chown node:node /data
VOLUME /data
EXPOSE 5178
USER node
CMD ["node", "apps/server/scripts/streamscope.mjs", "serve", "--host", "0.0.0.0", "--port", "5178", "--data", "/data", "--backend", "sim"]
