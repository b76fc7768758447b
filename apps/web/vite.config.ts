import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `pnpm dev` proxies the API to a server started with `pnpm streamscope serve --port 4170`.
const apiTarget = 'http://127.0.0.1:4170';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: {
      '/api/live': { target: apiTarget.replace('http', 'ws'), ws: true },
      '/api': apiTarget,
    },
  },
});
