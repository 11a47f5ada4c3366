import express, { type Express } from 'express';
import type { Logger } from '../../logger';
import { bundleDir, sendPage, withCsp } from '../bundle';

/**
 * The GraphiQL playground, served entirely by us: GET /graphql from a browser (HTML preferred, no
 * `query` parameter) gets the page, and /graphql/assets/* its script, CSS, font and Monaco workers,
 * bundled at build time by scripts/build-playground.mjs into dist/playground/. Nothing comes from a
 * CDN, and the CSP below lets the page load only from our origin. Styles need 'unsafe-inline':
 * Monaco and GraphiQL insert <style> elements and style attributes at run time. Images may also be
 * `data:` URIs: Monaco draws its error squiggles with inline SVG (an image cannot run script).
 */
export const PLAYGROUND_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DocQA GraphQL playground</title>
<link rel="stylesheet" href="ASSETS/main.css">
<script type="module" src="ASSETS/main.js"></script>
</head>
<body><div id="root"></div></body>
</html>
`;

/** Mounts the page and its assets under `basePath`; call before the GraphQL middleware on that path. */
export function mountPlayground(app: Express, basePath: string, logger: Logger): void {
  const dir = bundleDir('playground', logger, 'GraphQL playground');
  app.use(
    `${basePath}/assets`,
    withCsp(PLAYGROUND_CSP),
    express.static(dir, { index: false, redirect: false, fallthrough: false, maxAge: 0 }),
  );
  const page = PAGE.replaceAll('ASSETS', `${basePath}/assets`);
  app.get(basePath, (req, res, next) => {
    const wantsHtml = req.accepts(['application/graphql-response+json', 'application/json', 'text/html']) === 'text/html';
    if (!wantsHtml || req.query.query !== undefined || req.query.extensions !== undefined) return next();
    sendPage(res, page, PLAYGROUND_CSP);
  });
}
