import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
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

/** Text files worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|json|svg|txt|map)$/;

/**
 * Writes a brotli (quality 11) and a gzip (level 9) copy beside every text file of the build, once,
 * so that the server sends them as they are (@fastify/static preCompressed) instead of compressing
 * each answer again or sending it uncompressed. A copy that would not be smaller is not written.
 */
function precompressed(): Plugin {
  let outDir = '';
  return {
    name: 'precompressed',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    writeBundle() {
      for (const entry of fs.readdirSync(outDir, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue;
        const file = path.join(entry.parentPath, entry.name);
        const bytes = fs.readFileSync(file);
        const brotli = brotliCompressSync(bytes, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
        });
        const gzip = gzipSync(bytes, { level: 9 });
        if (brotli.length < bytes.length) fs.writeFileSync(`${file}.br`, brotli);
        if (gzip.length < bytes.length) fs.writeFileSync(`${file}.gz`, gzip);
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), versionFile(), precompressed()],
  // The Host header is passed on unchanged (a plain target string would rewrite it): the server's
  // cross-site check compares it with the page's Origin, so a rewritten one refuses every login.
  server: {
    proxy: {
      '/api': { target: 'http://localhost:3000', changeOrigin: false },
      '/theme': { target: 'http://localhost:3000', changeOrigin: false },
    },
  },
  build: {
    chunkSizeWarningLimit: 800,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Shared chunks of a few KB are inlined into the chunks that import them instead of being
        // files of their own: each answer costs its headers (more than such a chunk compressed).
        codeSplitting: { experimentalInlineCommonChunks: { maxSize: 8 * 1024 } },
      },
    },
  },
});
