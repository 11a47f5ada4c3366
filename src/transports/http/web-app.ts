import express, { type Express } from 'express';
import type { Logger } from '../../logger';
import { bundleDir, sendPage, withCsp } from '../bundle';

/**
 * The web app (web/), bundled at build time by scripts/build-web.mjs into dist/web/ and served by us
 * alone: the page at `/` and at the app's own paths (a reload of /projects/… gets the page too), its
 * script, CSS and icon under /assets/. Everything it calls is the public REST/SSE API on this origin,
 * so the CSP allows our origin only, for every kind of resource.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** URL prefix of the bundled files. */
export const WEB_ASSETS_PATH = '/assets';

/**
 * The app's own paths (client-side routes). Anything else, /api, /graphql, /healthz, /readyz,
 * /metrics and the API reference included, is never answered with the page.
 */
const APP_PATH =
  /^\/(?:|sign-in|models|departments|groups|audit|users(?:\/[\w-]+)?|projects(?:\/[\w-]+){0,2}|projects\/[\w-]+\/documents\/[\w-]+)\/?$/;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>DocQA</title>
<link rel="icon" href="ASSETS/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="ASSETS/main.css">
<script type="module" src="ASSETS/main.js"></script>
</head>
<body><div id="root"><p class="boot">Loading DocQA…</p></div>
<noscript>DocQA's web app needs JavaScript. The REST API is at /api.</noscript>
</body>
</html>
`;

/**
 * True for a GET of one of the app's paths by anything but a client that asks for JSON: a browser,
 * curl or a crawler (`Accept: *\/*` or none) gets the page; `Accept: application/json` the JSON 404.
 */
export function isAppPage(method: string, pathname: string, accepts: (types: string[]) => string | false): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (!APP_PATH.test(pathname)) return false;
  return accepts(['text/html', 'application/json']) === 'text/html';
}

/** Mounts the assets and the page; call after the API and GraphQL routes, before the final 404. */
export function mountWebApp(app: Express, logger: Logger): void {
  const dir = bundleDir('web', logger, 'web app');
  app.use(
    WEB_ASSETS_PATH,
    withCsp(WEB_APP_CSP),
    // chunks carry a content hash in their names; main.js, main.css and the icon are revalidated
    express.static(dir, {
      index: false,
      redirect: false,
      fallthrough: false,
      setHeaders: (res, file) =>
        res.setHeader('Cache-Control', /-[A-Z0-9]{8}\.js$/.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache'),
    }),
  );
  const page = PAGE.replaceAll('ASSETS', WEB_ASSETS_PATH);
  app.use((req, res, next) => {
    if (!isAppPage(req.method, req.path, (t) => req.accepts(t))) return next();
    sendPage(res, page, WEB_APP_CSP);
  });
}
