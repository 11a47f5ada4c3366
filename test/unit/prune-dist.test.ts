import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run build` removes compiled files whose source is gone: tsc leaves them, and a stale
 * dist/src/config.js (from before config.ts became config/index.ts) shadowed the real module for
 * every require('../config').
 */
const ROOT = path.resolve(__dirname, '../..');

it('removes a compiled file without a source, and keeps the compiled files that have one', () => {
  const stale = path.join(ROOT, 'dist/src/__pruned_by_test__');
  mkdirSync(stale, { recursive: true });
  writeFileSync(path.join(stale, 'gone.js'), 'module.exports = 1;\n');
  writeFileSync(path.join(stale, 'gone.js.map'), '{}\n');
  const out = execFileSync(process.execPath, [path.join(ROOT, 'scripts/prune-dist.mjs')], { encoding: 'utf8' });
  expect(out).toMatch(/removed \d+ compiled file/);
  expect(existsSync(stale)).toBe(false);
  expect(existsSync(path.join(ROOT, 'dist/src/config/index.js'))).toBe(true);
  expect(existsSync(path.join(ROOT, 'dist/src/main.js'))).toBe(true);
});
