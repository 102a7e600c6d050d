import { createHash } from 'node:crypto';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/** Writes version.json with a hash of the built chunks; the app polls it to offer a reload. */
function versionFile(): Plugin {
  return {
    name: 'version-file',
    apply: 'build',
    generateBundle(_options, bundle) {
      const hash = createHash('sha256');
      for (const name of Object.keys(bundle).sort()) hash.update(name);
      const version = JSON.stringify({ hash: hash.digest('hex').slice(0, 16), builtAt: new Date().toISOString() });
      this.emitFile({ type: 'asset', fileName: 'version.json', source: version });
    },
  };
}

export default defineConfig({
  plugins: [react(), versionFile()],
  server: { proxy: { '/api': 'http://localhost:3000', '/theme': 'http://localhost:3000' } },
  build: { chunkSizeWarningLimit: 800, sourcemap: false },
});
