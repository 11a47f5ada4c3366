import express, { Router } from 'express';
import helmet from 'helmet';
import path from 'node:path';
import { openApiDocument } from './openapi';

/** swagger-ui-dist's files, installed with the service: the page needs nothing from another origin. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set([
  'swagger-ui.css',
  'index.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>DocQA API reference</title>
    <link rel="stylesheet" type="text/css" href="/api/docs/assets/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="/api/docs/assets/index.css" />
    <link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/api/docs/assets/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/api/docs/assets/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/api/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
`;

// CSP forbids inline scripts, so the configuration is a script file of its own. validatorUrl: null
// keeps Swagger UI from sending the document to validator.swagger.io; "Authorize" takes the bearer
// token and "Try it out" calls this server.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout'
  });
});
`;

/** Only our own origin: scripts and styles from here, the document and "try it" calls to here. */
const csp = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      // Swagger UI sets style attributes on its elements
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'self'"],
    },
  },
});

/**
 * GET /api/openapi.json (the OpenAPI 3.1 document) and GET /api/docs (Swagger UI over it).
 * Mounted before the API router, only when API_DOCS is on.
 */
export function apiDocsRoutes(): Router {
  const r = Router();
  r.get('/api/openapi.json', (_req, res) => {
    res.json(openApiDocument());
  });
  r.get('/api/docs', csp, (_req, res) => {
    res.type('html').send(PAGE);
  });
  r.get('/api/docs/init.js', csp, (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  const assets = express.static(SWAGGER_UI_DIR, { index: false, fallthrough: false, maxAge: '1h' });
  r.get('/api/docs/assets/:file', csp, (req, res, next) => {
    res.locals.routeTemplate = '/api/docs/assets/:file';
    if (!ASSETS.has(req.params.file)) {
      res.status(404).json({ error: 'not_found' });
      return;
    }
    req.url = `/${req.params.file}`;
    assets(req, res, next);
  });
  return r;
}
