// Bundles the web app (web/) into dist/web/: the first screen's script and CSS, the screens loaded
// later as chunks of their own, and the icon. The server serves them under /assets/
// (src/transports/http/web-app.ts), so the page loads nothing from another origin.
import { build } from 'esbuild';
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'web');
rmSync(outdir, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'web/main.tsx' },
  outdir,
  bundle: true,
  minify: true,
  sourcemap: false,
  legalComments: 'linked',
  logLevel: 'warning',
  format: 'esm',
  platform: 'browser',
  splitting: true,
  target: 'es2022',
  jsx: 'automatic',
  chunkNames: 'chunks/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  // the icon is served beside the bundle (/assets/icon.svg), not inlined
  external: ['/assets/*'],
});
copyFileSync(path.join(root, 'web', 'icon.svg'), path.join(outdir, 'icon.svg'));
// pdf.js's worker, for the citation viewer: a module worker loaded from our own assets
copyFileSync(path.join(root, 'node_modules', 'pdfjs-dist', 'build', 'pdf.worker.min.mjs'), path.join(outdir, 'pdf.worker.min.mjs'));
if (process.argv.includes('--meta')) console.log(JSON.stringify(result.metafile));
