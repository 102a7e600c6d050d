import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { DEFAULT_PRODUCT_NAME, SESSION_COOKIE } from '@lm/contract';
import { API_BASE_PATH, documentTransforms } from './openapi-document.ts';

/** The product's mark, the web app's favicon (packages/web/public/favicon.svg): the logo of the API reference too. */
const LOGO_SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1c7ed6"/><path d="M10 14a6 6 0 1 1 6 6h-2v3h-3v3H8v-5l6-6a6 6 0 0 1-4-1z" fill="#fff"/><circle cx="18" cy="12" r="2" fill="#1c7ed6"/></svg>');

/** The introduction at the top of `/api/docs` (Markdown, as OpenAPI's `info.description`). */
export const API_INTRODUCTION = `The HTTP API of the ${DEFAULT_PRODUCT_NAME}: everything the web app does, for shops, CRMs and scripts. Every path below is relative to \`${API_BASE_PATH}\` on this server.

## Authentication with a token

Create an **API token** under *My account → API tokens* (shown once, \`lmat_…\`) and send it with every call:

    curl -H "Authorization: Bearer lmat_…" https://licenses.example.com/api/licenses

A token acts as its owner, with the owner's permissions. Operations marked with the session cookie alone (tokens, password, second factor, sessions) answer a token with \`403 ERR_FORBIDDEN\`. The web app signs in with \`POST /session\` and the \`${SESSION_COOKIE}\` cookie; calls with that cookie that change something must come from the site's own origin. Use **Authorize** above to try calls here with a token.

## Pagination

Lists take \`offset\` (default 0) and \`limit\` (default 50), a \`filter\` text and a \`sort\` of comma-separated fields, each \`-field\` for descending (\`sort=-createdAt,id\`), and answer \`{ items, totalCount }\`. The large lists (TANs, licenses, users) also answer \`nextCursor\`: pass it as \`after\` for the next page in the same sort without counting off rows (\`null\` on the last page); \`totalCountExact: false\` says there are more matches than were counted. A query parameter an operation does not declare is refused with \`400 ERR_VALIDATION\` naming it, so a misspelt filter never looks like an empty list.

## Errors

Every error answers with one shape, the \`Error\` schema: \`{ "error": "ERR_…", "message": "…", "details": [ … ] }\`. \`error\` is a stable code to program against; \`message\` is plain text in the language of \`Accept-Language\` (de, en, es, fr, it; others get English). A refused field is a detail \`{ path, message, code, params }\` with a stable message \`code\` (\`tooShort\`, \`tanCode\`, …) and its limits in \`params\`. A 5xx is a bug in this server, except \`503 ERR_DATABASE_UNAVAILABLE\` with \`Retry-After\` while the database cannot be reached, \`503 ERR_DATABASE_BUSY\` while every database connection is busy (or SQLite is locked by another program), and \`503 ERR_SHUTTING_DOWN\` while the server stops.

## Concurrent changes: ETag and If-Match

\`GET\` of one record (a TAN, license, user, product, feature, license policy, shop connection, webhook endpoint; \`GET /settings\`) answers an \`ETag\`. Send it back as \`If-Match\` with a \`PUT\`, \`PATCH\` or \`DELETE\` of that record to make the change only to that version: if someone changed the record meanwhile, nothing is written and the answer is \`412 ERR_EDIT_CONFLICT\` with the record as it is now in \`current\` (and its ETag). Without \`If-Match\` a change is made whatever changed meanwhile; send only the fields you change (a field left out keeps its value; \`PATCH /settings\` takes only the keys that change).

## Files as JSON

Downloads are files with their own media type and \`Content-Disposition\`: a license file (\`.lic\` as \`application/octet-stream\`, \`format=json\` as \`application/json\`), the e-mail consent export (\`text/csv\`), a public key (\`application/x-pem-file\`). Browsers, curl and \`Accept: */*\` get the file. A caller whose \`Accept\` header rates \`application/json\` above the file's type (\`Accept: application/json\`) gets a text file as JSON instead, the \`TextFile\` schema \`{ fileName, mediaType, content }\` (the JSON license file stays itself). So a generated client that asks for JSON once reads every answer as JSON, e.g. openapi-fetch:

    createClient<paths, 'application/json'>({ baseUrl: 'https://licenses.example.com/api', headers: { authorization: 'Bearer lmat_…', accept: 'application/json' } })

## Rate limits

Sign-in, TAN activation, the mails a caller can trigger (confirmation, password reset) and a few public operations are limited per account and per client address. A call over a limit answers \`429 ERR_RATE_LIMITED\` with a \`Retry-After\` header in seconds: wait that long, then try again. The limits sit above what people and ordinary integrations do; a loop that retries at once does meet them.

## Webhooks

Instead of polling, let the server call you: under *Tools → Webhooks* (or \`POST /webhook-endpoints\`) an endpoint receives signed events (Standard Webhooks: \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\` headers) when licenses, TANs, users or orders change, at least once and in order per endpoint, retried for 72 hours. The delivery log, redelivery and test events are operations of the *webhooks* tag; the project's \`docs/integration-api.md\` lists the events and shows how to verify a signature.`;

const TAGS = [
  ['licenses', 'Activated licenses, their files and the actions on them'],
  ['tans', 'TANs: the codes that activate licenses'],
  ['products', 'Products and their versions'],
  ['features', 'Features that products unlock'],
  ['license-policies', 'How long licenses of a kind are valid'],
  ['users', 'Accounts (administrators: every account; others: their own)'],
  ['accounts', 'Registration, confirmation, password reset and e-mail change'],
  ['account', "The signed-in account's password and sessions"],
  ['two-factor sign-in', 'Authenticator apps and recovery codes'],
  ['session', 'Signing in and out'],
  ['api-tokens', 'Tokens for integrations (session only)'],
  ['webhooks', 'Outbound webhook endpoints and their deliveries'],
  ['orders', "The shop's order notifications (signed, no token)"],
  ['shop', 'Shop connections (Stripe, Paddle, FastSpring, Shopify, generic): their signed events become TANs'],
  ['changes', 'The change log of every record'],
  ['license events', 'What happened to licenses beyond changes of records: refusals, no seat, leases expired, clock tampering'],
  ['statistics', 'Activation and license statistics'],
  ['dashboard', 'The staff home: what needs attention today'],
  ['settings', 'Settings and the theme'],
  ['health', 'Liveness and web app error reports'],
  ['releases', 'Releases of product versions, their artifacts (uploaded through tus at /api/uploads), and downloads for entitled licenses'],
  ['organizations', 'Organizations, their members and invitations, licenses and named-user seats'],
  ['desktop sign-in', 'Desktop sign-in of named users (RFC 8628): the /device page and the sign-ins under Security'],
  ['desktop protocol', 'What the licensed software itself calls (no account)'],
] as const;

/** The options of @fastify/swagger: the document's frame; routes and schemas come from openapi-document.ts. */
export function openApiOptions(version: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${DEFAULT_PRODUCT_NAME} API`,
        version,
        description: API_INTRODUCTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: API_BASE_PATH, description: 'This server' }],
      tags: TAGS.map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token (lmat_…): acts as its owner, with the owner’s permissions' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The web app’s session' },
        },
      },
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    },
    ...documentTransforms(),
  };
}

/** `/api/docs`: Swagger UI under the product's name and mark, reading the document of this server. */
export const swaggerUiOptions: FastifySwaggerUiOptions = {
  routePrefix: `${API_BASE_PATH}/docs`,
  logo: { type: 'image/svg+xml', content: LOGO_SVG, href: `${API_BASE_PATH}/docs`, target: '_self' },
  theme: {
    title: `${DEFAULT_PRODUCT_NAME} API`,
    favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: LOGO_SVG }],
    css: [{ filename: 'theme.css', content: '.swagger-ui .topbar { background-color: #1c7ed6; } .swagger-ui .topbar a img { height: 40px; } .swagger-ui .topbar .download-url-wrapper { display: none; }' }],
  },
  uiConfig: { docExpansion: 'list', deepLinking: true, persistAuthorization: true, displayOperationId: true },
};
