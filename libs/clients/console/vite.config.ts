import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The gateway serves dist/ at /console (services/gateway, console-routes.ts). The SDK is bundled from its
// source, so the console builds before libs/clients/sdk's dist/ exists.
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  resolve: {
    // The subpath first: an alias also matches what starts with its name and a slash.
    alias: [
      {
        find: '@text-memory/sdk/tools',
        replacement: fileURLToPath(new URL('../sdk/src/tools/index.ts', import.meta.url)),
      },
      {
        find: '@text-memory/sdk',
        replacement: fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)),
      },
    ],
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
  // `pnpm --filter @text-memory/console dev` against a gateway on :8080.
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/v1': 'http://127.0.0.1:8080' } },
});
