// Bundles the GraphiQL playground (playground/) into dist/playground/: the page's script and CSS,
// and Monaco's workers as their own files. Everything is served by our server under
// /graphql/assets/, so the page loads nothing from another origin.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'playground');
rmSync(outdir, { recursive: true, force: true });

const common = {
  bundle: true,
  minify: true,
  sourcemap: false,
  legalComments: 'linked',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
  absWorkingDir: root,
};

await Promise.all([
  build({
    ...common,
    entryPoints: { main: 'playground/main.tsx' },
    outdir,
    format: 'esm',
    splitting: true,
    target: 'es2022',
    jsx: 'automatic',
    chunkNames: 'chunks/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    // Monaco's codicon font is bundled as a file of ours, not inlined and not fetched elsewhere
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file', '.png': 'file' },
  }),
  build({
    ...common,
    entryPoints: {
      'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
      'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
      'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
    },
    outdir,
    format: 'iife',
    target: 'es2022',
  }),
]);
