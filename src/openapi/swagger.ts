/**
 * The browsable API page: Swagger UI from the installed swagger-ui-dist package, served by this
 * process (no CDN: the page works offline and behind a strict Content-Security-Policy).
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Swagger UI sets style attributes and draws icons from data: URIs; its scripts and the document
 * come from this origin. Nothing else loads (its validator badge is switched off below).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// Relative URLs: the page lives at /docs, so they resolve under /docs/ and /openapi.json even
// behind a proxy that mounts the API under a prefix.
export const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Archive Records Backend API</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

// A file, not an inline script, so that script-src 'self' suffices.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** The assets the page loads, by the name in its URL: content type and where the text comes from. */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui.css': { type: 'text/css', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript', file: 'swagger-ui-bundle.js' },
  'init.js': { type: 'text/javascript', text: INIT_SCRIPT },
};

/** Asset name → its content type. */
export const DOCS_ASSET_TYPES: Record<string, string> = Object.fromEntries(Object.entries(ASSETS).map(([name, a]) => [name, a.type]));

const loaded = new Map<string, string>();

/** An asset's text and content type, read once from swagger-ui-dist; undefined for any other name. */
export function docsAsset(name: string): { text: string; type: string } | undefined {
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  const asset = ASSETS[name];
  if (asset.text !== undefined) return { text: asset.text, type: asset.type };
  let text = loaded.get(name);
  if (text === undefined) {
    const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
    text = fs.readFileSync(path.join(dir, asset.file!), 'utf8');
    loaded.set(name, text);
  }
  return { text, type: asset.type };
}
