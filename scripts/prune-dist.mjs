// Removes compiled files in dist/ whose TypeScript source is gone (a module renamed or moved).
// tsc never deletes them, and a stale dist/src/config.js would shadow dist/src/config/index.js
// for every require('../config'). Run after tsc by `npm run build`.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
let removed = 0;

/** Walks a compiled tree (src, bench, migrations, test) and removes outputs without a source. */
function prune(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(full);
      if (readdirSync(full).length === 0) rmSync(full, { recursive: true });
      continue;
    }
    const m = /^(.*)\.(js|js\.map|d\.ts)$/.exec(entry.name);
    if (!m) continue;
    const source = path.join(root, path.relative(dist, dir), `${m[1]}.ts`);
    if (!existsSync(source)) {
      rmSync(full);
      removed++;
    }
  }
}

for (const tree of ['src', 'bench', 'migrations', 'test']) prune(path.join(dist, tree));
if (removed) process.stdout.write(`prune-dist: removed ${removed} compiled file(s) whose source is gone\n`);
