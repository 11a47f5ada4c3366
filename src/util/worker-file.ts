import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * A worker thread's compiled script: `name` beside the calling module (`dir`, its __dirname) when that
 * runs from dist/, else the build in dist/ (under ts-jest the module is TypeScript but worker threads
 * need JavaScript; npm test builds it first). `folder` is the module's folder below src/, e.g.
 * `ingest/parsers`.
 */
export function workerFile(dir: string, folder: string, name: string): string {
  const here = path.join(dir, name);
  if (existsSync(here)) return here;
  const root = path.resolve(dir, ...folder.split('/').map(() => '..'), '..');
  const built = path.join(root, 'dist/src', folder, name);
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  return built;
}
