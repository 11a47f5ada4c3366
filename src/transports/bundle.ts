import type { RequestHandler, Response } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger';

// What the two pages we serve from our own bundles share: the web app (http/web-app.ts) and the
// GraphQL playground (graphql/playground.ts), each built into dist/<name>/ by scripts/build-<name>.mjs.

/** The project root: the nearest directory above this file holding package.json (src/ or dist/src/). */
function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** Where a bundle's files are, dist/<name>/; the log says so when it was not built. */
export function bundleDir(name: 'web' | 'playground', logger?: Logger, what: string = name): string {
  const dir = path.join(projectRoot(), 'dist', name);
  if (logger && !existsSync(path.join(dir, 'main.js'))) logger.warn({ dir }, `${what} assets are missing: run \`npm run build\``);
  return dir;
}

/** Middleware that puts the page's Content-Security-Policy on the assets it serves. */
export const withCsp =
  (csp: string): RequestHandler =>
  (_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    next();
  };

/** Answers with the bundle's HTML page, under its CSP and never cached (its assets are revalidated). */
export function sendPage(res: Response, page: string, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Cache-Control', 'no-cache');
  res.type('html').send(page);
}
