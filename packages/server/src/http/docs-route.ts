import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { servedArtifact } from '../artifacts.js';

/**
 * `/docs`: the OpenAPI document as a browsable reference, rendered in the
 * browser by Scalar's standalone bundle (@scalar/api-reference, MIT), served from this process
 * with nothing fetched from any other origin. No key: the page and /docs/openapi.json describe
 * the API and hold no secrets. Scalar is configured to stay offline: no default fonts (they come
 * from fonts.scalar.com), no proxy, no "test request" client or its button, no agent chat, no
 * telemetry; the request examples it shows are text only.
 */
export const DOCS_PATHS = {
  page: '/docs',
  script: '/docs/scalar.js',
  init: '/docs/reference.js',
  openapi: '/docs/openapi.json',
} as const;

/**
 * Only this origin. `style-src 'unsafe-inline'` is the one exception, and it is for styles, not
 * scripts: the bundle is a Vue application that injects its stylesheet as <style> elements and
 * sets style attributes at run time, and a style cannot run code. `img-src data:` is for the
 * icons the bundle embeds as data: URIs. No script is inline: the page loads the bundle and
 * reference.js (which starts it) from this origin.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Scalar's configuration: everything that would reach another origin is off. */
export const SCALAR_CONFIGURATION = {
  url: DOCS_PATHS.openapi,
  withDefaultFonts: false,
  hideClientButton: true,
  hideTestRequestButton: true,
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
  documentDownloadType: 'json',
  persistAuth: false,
} as const;

/**
 * The element the reference mounts on. Not `api-reference`: the bundle, as it loads, mounts a
 * second instance with its default configuration (fonts from fonts.scalar.com, the agent chat)
 * on any element with that id.
 */
const MOUNT_ID = 'reference';

interface Asset {
  readonly body: Buffer;
  readonly etag: string;
}

function asset(text: string | Buffer): Asset {
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
}

let bundle: Asset | null = null;
/** The standalone browser bundle (3.5 MB), read from node_modules once, on first request. */
function scalarBundle(): Asset {
  bundle ??= asset(readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js')));
  return bundle;
}

const INIT = asset(
  `// Starts the API reference; a file of its own so the page needs no inline script.\n` +
    `Scalar.createApiReference('#${MOUNT_ID}', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`,
);

function page(bundleTag: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Finance Desk API reference</title>
</head>
<body>
<noscript>The reference needs JavaScript. The same description is at <a href="${DOCS_PATHS.openapi}">${DOCS_PATHS.openapi}</a>.</noscript>
<div id="${MOUNT_ID}"></div>
<script src="${DOCS_PATHS.script}?v=${bundleTag}"></script>
<script src="${DOCS_PATHS.init}?v=${INIT.etag.slice(1, 17)}"></script>
</body>
</html>
`;
}

function sendAsset(reply: FastifyReply, ifNoneMatch: string | undefined, a: Asset, type: string, immutable: boolean) {
  reply.header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('etag', a.etag);
  // The page names each script with its content hash (?v=), so a script can be cached for good;
  // the page and the document are revalidated (ETag) so a new build is seen at once.
  reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (ifNoneMatch === a.etag) return reply.code(304).send();
  return reply.code(200).type(type).send(a.body);
}

export function registerDocsRoutes(app: FastifyInstance): void {
  let html: Asset | null = null;
  let openapi: Asset | null = null;
  app.get(DOCS_PATHS.page, async (req, reply) => {
    html ??= asset(page(scalarBundle().etag.slice(1, 17)));
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    return sendAsset(reply, req.headers['if-none-match'], html, 'text/html; charset=utf-8', false);
  });
  app.get(DOCS_PATHS.script, async (req, reply) =>
    sendAsset(reply, req.headers['if-none-match'], scalarBundle(), 'text/javascript; charset=utf-8', true),
  );
  app.get(DOCS_PATHS.init, async (req, reply) =>
    sendAsset(reply, req.headers['if-none-match'], INIT, 'text/javascript; charset=utf-8', true),
  );
  app.get(DOCS_PATHS.openapi, async (req, reply) => {
    openapi ??= asset(servedArtifact('openapi.json').text);
    return sendAsset(reply, req.headers['if-none-match'], openapi, 'application/json; charset=utf-8', false);
  });
}
