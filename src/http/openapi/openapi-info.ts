// The parts of the OpenAPI document that are not derived from route schemas: who, where, how to authenticate.
import { ERROR_CODES } from '../errors/errors.js'

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, entry]) => `| \`${code}\` | ${entry.status} | ${entry.meaning} |`)
  .join('\n')

const description = `An animal catalogue and its store: list, add, fetch, update and delete pets; place, follow, \
cancel and complete
orders for them.

**Pet lifecycle.** An animal's \`status\` follows its orders, and only these transitions exist:

| transition | caused by | animal | order |
|---|---|---|---|
| place | \`POST /store/orders\` | \`available\` → \`pending\` | new, \`placed\` |
| complete | \`POST /store/orders/{orderId}/complete\` | \`pending\` → \`sold\` | \`placed\` → \`completed\` \
(\`complete: true\`) |
| cancel | \`DELETE /store/orders/{orderId}\` | \`pending\` → \`available\` | \`placed\` → \`cancelled\` |

Each transition happens in one database transaction, animal and order together. Anything else (ordering an animal
that is not \`available\`, completing or cancelling an order that is no longer \`placed\`) answers 409 \`conflict\`
and changes nothing; when clients race for the same animal or order, exactly one wins. \`completed\` and
\`cancelled\` orders are final and stay readable. An animal created as \`pending\` or \`sold\` (allowed by \`POST
/pets\`) has no order and cannot be ordered. \`PATCH /pets/{petId}\` may set any status while the animal has no
\`placed\` order (409 otherwise), and \`DELETE /pets/{petId}\` is refused (409) while it has one.

**Stability.** Operations marked \`x-stability: beta\` (and \`[beta]\` in their summary) are new and may still
change: updating and deleting animals; placing, reading, cancelling and completing orders; every category operation;
the event feed and stream; webhooks. Everything else is stable
for version 1.

**Authentication.** Every operation needs \`Authorization: Bearer <API key>\`. A missing or invalid key is answered
with 401 and \`WWW-Authenticate\` (RFC 6750) before anything else about the request is looked at. An expired or
revoked key is invalid from that moment on, on every instance (keys are checked on every request).

**Scopes.** A key carries scopes: \`pets:read\` (\`listPets\`, \`getPet\`, \`listCategories\`, \`getCategory\`),
\`pets:write\` (\`createPet\`, \`updatePet\`, \`deletePet\`, \`createCategory\`, \`putCategory\`, \`deleteCategory\`),
\`orders:read\` (\`listOrders\`, \`getOrder\`), \`orders:write\` (\`placeOrder\`, \`cancelOrder\`, \`completeOrder\`),
\`events:read\` (\`listEvents\`, \`streamEvents\`) and \`webhooks:manage\` (the \`Webhooks\` operations); all of them
unless it was created with fewer. Each operation names the scope it needs in \`x-required-scope\` and in its
description. A valid key without it gets 403 \`forbidden\` with \`WWW-Authenticate:
Bearer realm="petstore", error="insufficient_scope", scope="<scope>"\` (RFC 6750).

**Rate limits.** Each key has a quota of requests per fixed window (600 per 60 s unless the operator configures
otherwise), shared by every instance of the service; requests without a valid key are counted against the client's
address, with a smaller quota; once an address has spent it, its requests without a valid key are refused (429)
for the rest of the window. A valid key is never refused because of the anonymous traffic of its address. Every \
response under \`/v1\` to a request that counts (not \`OPTIONS\`, nor one refused before its key is read: no or a \
repeated \`Host\`, a repeated \`Authorization\` or \`Content-Type\`; nor the 408 of a body that arrives too slowly, \
written by the connection, not by the request) states the quota and what is
left of it (draft-ietf-httpapi-ratelimit-headers): \`RateLimit-Policy: "default";q=600;w=60\` and \`RateLimit:
"default";r=<remaining>;t=<seconds until the window resets>\`. Over quota, the answer is 429 \`rate_limited\` with
\`Retry-After\` (seconds). Browsers can read these headers (\`Access-Control-Expose-Headers\`).

**Pagination.** \`GET /pets\` returns pets in ascending \`id\` order. When more exist, the response carries \`Link:
<…/v1/pets?limit=…&status=…&cursor=…>; rel="next"\` (RFC 8288). The cursor is opaque, signed, and bound to the
\`status\` filter it was issued for; pages stay complete and duplicate-free while others insert. \`GET
/store/orders\` pages the same way (\`limit\` and \`cursor\`); a cursor of one collection is not accepted by the
other.

**Events.** Every change (\`pet.created\`, \`pet.updated\`, \`pet.deleted\`, \`order.placed\`, \`order.cancelled\`,
\`order.completed\`, \`category.created\`, \`category.updated\`, \`category.deleted\`) is written as an event in the
same transaction as the change; an order that moves its animal's status writes \`pet.updated\` too. \`GET /events\`
lists them after \`after\` (with \`wait\`, a long poll), and \`GET /events/stream\` sends them as Server-Sent Events.
A reader that keeps following \`after\` (the \`Link\` header, or the last event id) never skips an event. Events are
kept for a limited time (30 days unless the operator configures otherwise); a position older than that is 410
\`gone\`. Each key may hold a limited number of streams and waiting long polls at once (10 unless configured
otherwise; 429 beyond).

**Webhooks.** \`POST /webhooks\` registers an endpoint; from then on every event of its types is POSTed to it as the
same JSON as in the feed, signed as Standard Webhooks prescribes (\`webhook-id: evt_<event id>\`, the same on every
retry; \`webhook-timestamp\`; \`webhook-signature\`), so that any Standard Webhooks library verifies it with the
endpoint's \`secret\`. A 2xx within 10 s (unless the operator configures otherwise) is success; anything else (a \
redirect included) is retried on a schedule,
then the delivery is marked \`failed\`; \`GET /webhooks/{webhookId}/deliveries\` shows every attempt. Delivery is at
least once and not ordered: de-duplicate by \`webhook-id\`, order by the event id. Endpoints must be public
addresses: a URL naming a loopback, private or link-local address is refused, and a host name is checked again at
every attempt.

**Numbers.** Ids, \`categoryId\` and \`petId\` are integers from 1 to 2^53−1 (9007199254740991), the range every
JSON client reads exactly. A number the service could not read exactly (larger, or with a fraction or exponent where
an integer is expected) is refused with 400, never rounded.

**Defaults.** \`status\` omitted at creation means \`available\`. \`limit\` defaults to 20 (1 to 100). An order's
\`quantity\` defaults to 1 (1 to 100) and its \`shipDate\` to null.

**Deprecation.** \`GET /pets/{petId}\` is deprecated since 2026-01-01 (\`Deprecation: @1767225600\`, RFC 9745) and
will be removed on 2030-12-05 (\`Sunset\`, RFC 8594); use \`GET /pets\` instead.

**Idempotent retries.** \`createPet\`, \`updatePet\`, \`deletePet\`, \`createCategory\`, \`putCategory\`,
\`deleteCategory\`, \`placeOrder\`, \`cancelOrder\`, \`completeOrder\`, \`createWebhook\`, \`updateWebhook\`,
\`deleteWebhook\`, \`rotateWebhookSecret\` and \`retryWebhookDelivery\` take an optional \`Idempotency-Key\` header
(draft-ietf-httpapi-idempotency-key-header): 1 to 255 visible ASCII characters, new for each request (a random
UUID, say). The response (status, body, \`Location\` and \`ETag\`) is stored in the same database transaction as
the request's effect. A retry with the same key and the same request (operation, path, body compared as JSON
values, \`If-Match\` and \`If-None-Match\`) gets that response again with \`Idempotent-Replayed: true\`, and
changes nothing; the same key with a different request is 422 \`idempotency_key_reused\`; a retry while the first
request is still being processed is 409 \`idempotency_key_in_flight\` with \`Retry-After\`. An error of the
operation itself (404, 409 \`conflict\`) is stored and replayed like a success; a server error (5xx) is not, nor is
the 409 that ends "Retry." (a pet changed by others on every attempt), so a retry runs the request again. Keys
belong to the API key that sent them and are remembered for 24 hours after the response, unless the operator set
another period. Without the header, requests are not deduplicated.

**Conditional requests.** Every response carrying one animal (\`GET\`, \`POST\` and \`PATCH\`) has a strong \`ETag\`
that changes exactly when the animal changes, an order moving its status included (RFC 9110 §8.8.3). \`PATCH\` and
\`DELETE /pets/{petId}\` take \`If-Match\` (one or more ETags, or \`*\`): when it does not name the current ETag, or
the animal is gone, the answer is 412 \`precondition_failed\` (with the current \`ETag\` when the animal exists) and
nothing changes, so two clerks editing the same animal cannot overwrite each other unknowingly. \`GET
/pets/{petId}\` takes \`If-None-Match\`: while it names the current ETag, the answer is 304 without a body; and
\`If-Match\`, evaluated first: when it does not name the current ETag, the answer is 412 with that ETag.

**Servers.** \`servers\` lists the production and staging base addresses the operator configured \
(\`PRODUCTION_BASE_URL\`,
\`STAGING_BASE_URL\`), then the instance that served this document, last and marked as such, so that a client
generated from it talks to production unless told otherwise. The committed copy of this document names no production
or staging server (each operator configures their own) and names the instance as \`http://127.0.0.1:8080/v1\`, where
the service listens with no configuration.

**Compatibility.** Requests are closed: a property or query parameter not documented is refused (400). Responses are
open to additive change: a later 1.x version may add properties to response bodies (and new headers, codes and
operations), so clients must ignore what they do not know; schemas of responses therefore do not say
\`additionalProperties: false\`. Removing or renaming anything, or narrowing what a request accepts, needs a new major
version.

**Headers.** Every response under \`/v1\` carries \`X-Request-Id\` and (while the rate-limit store answers, to a \
request that counts: see Rate limits) \`RateLimit\`
and \`RateLimit-Policy\`, \`Access-Control-Allow-Origin\` and \`Access-Control-Expose-Headers\` (CORS), \
\`Cache-Control: no-store\`
and \`X-Content-Type-Options: nosniff\`; each response lists the headers it may carry (all but the last two). A method \
a documented path does not support
is answered 405 \`method_not_allowed\` with \`Allow\` (\`components.responses.MethodNotAllowed\`).

**Errors.** Every error has the body \`{code, message, status}\` (plus \`details\` for invalid requests):

| code | status | meaning |
|---|---|---|
${errorTable}
`

/**
 * The introduction as the docs page shows it: its first paragraph, then every \`**Topic.**\` paragraph as a short
 * section of its own, all in one collapsed block, so that the operations come first on the page.
 */
function inShortSections(text: string): string {
  const [introduction = '', ...topics] = text.split(/\n\n(?=\*\*[^*]+\.\*\* )/)
  const sections = topics.map((topic) => topic.replace(/^\*\*([^*]+)\.\*\* /, '#### $1\n\n'))
  const names = topics.map((topic) => /^\*\*([^*]+)\.\*\*/.exec(topic)?.[1]?.toLowerCase()).join(', ')
  return [introduction, `<details>\n<summary>About this API: ${names}</summary>`, ...sections, '</details>\n'].join(
    '\n\n',
  )
}

export interface ApiServers {
  productionBaseUrl: string | undefined
  stagingBaseUrl: string | undefined
}

/** The configured servers, production first (a generator takes the first). */
export function configuredServers({
  productionBaseUrl,
  stagingBaseUrl,
}: ApiServers): { url: string; description: string; 'x-internal': boolean }[] {
  return [
    ...(productionBaseUrl ? [{ url: productionBaseUrl, description: 'Production', 'x-internal': false }] : []),
    ...(stagingBaseUrl ? [{ url: stagingBaseUrl, description: 'Staging', 'x-internal': false }] : []),
  ]
}

export const API_INFO = { title: 'Petstore API', version: '1.1.0' }

/**
 * The OpenAPI 3.1 `webhooks` section: what the service sends that is not an answer to a route (the webhook
 * deliveries), given by the feature that sends it, through the composition.
 */
export type DocumentWebhooks = Record<string, object>

export const openapiBase = (servers: ApiServers, webhooks: DocumentWebhooks) => ({
  openapi: '3.1.0',
  info: {
    ...API_INFO,
    description: inShortSections(description),
    // No contact URL: the service has no site of its own, and a placeholder on the docs page leads nowhere.
    contact: { name: 'Petstore API team' },
    // Named, not linked: an SPDX identifier becomes a link to spdx.org on the docs page, which leaves the service.
    license: { name: 'MIT' },
  },
  servers: configuredServers(servers),
  tags: [
    { name: 'Pets', description: 'The animals in the catalogue.' },
    {
      name: 'Categories',
      description: 'Names for the groups of animals (the `categoryId` every animal carries). Beta.',
    },
    {
      name: 'Store',
      description:
        'Orders for animals. An order is placed on an `available` animal (which becomes `pending`), then ' +
        'completed (animal `sold`) or cancelled (animal `available` again). Placing, reading, cancelling and ' +
        'completing orders are beta.',
    },
    {
      name: 'Events',
      description: 'Every change as an event: a feed (with long polling) and a Server-Sent Events stream. Beta.',
    },
    {
      name: 'Webhooks',
      description:
        'Endpoints that receive every event as a signed POST (Standard Webhooks), their secrets and their ' +
        'delivery logs. Beta.',
    },
  ],
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http' as const,
        scheme: 'bearer',
        description: 'An API key (`pst_…`) sent as a bearer token.',
      },
    },
  },
  security: [{ bearerAuth: [] }],
  webhooks,
})
