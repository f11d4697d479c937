// The parts of the OpenAPI document that are not derived from route schemas: who, where, how to authenticate.
import { ERROR_CODES } from './errors.js'

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, entry]) => `| \`${code}\` | ${entry.status} | ${entry.meaning} |`)
  .join('\n')

const description = `An animal catalogue and its store: list, add, fetch, update and delete pets; place, follow, cancel and complete
orders for them.

**Pet lifecycle.** An animal's \`status\` follows its orders, and only these transitions exist:

| transition | caused by | animal | order |
|---|---|---|---|
| place | \`POST /store/orders\` | \`available\` → \`pending\` | new, \`placed\` |
| complete | \`POST /store/orders/{orderId}/complete\` | \`pending\` → \`sold\` | \`placed\` → \`completed\` (\`complete: true\`) |
| cancel | \`DELETE /store/orders/{orderId}\` | \`pending\` → \`available\` | \`placed\` → \`cancelled\` |

Each transition happens in one database transaction, animal and order together. Anything else (ordering an animal
that is not \`available\`, completing or cancelling an order that is no longer \`placed\`) answers 409 \`conflict\`
and changes nothing; when clients race for the same animal or order, exactly one wins. \`completed\` and
\`cancelled\` orders are final and stay readable. An animal created as \`pending\` or \`sold\` (allowed by \`POST
/pets\`) has no order and cannot be ordered. \`PATCH /pets/{petId}\` may set any status while the animal has no
\`placed\` order (409 otherwise), and \`DELETE /pets/{petId}\` is refused (409) while it has one.

**Stability.** Operations marked \`x-stability: beta\` (and \`[beta]\` in their summary) are new and may still
change: updating and deleting animals; placing, reading, cancelling and completing orders. Everything else is stable
for version 1.

**Authentication.** Every operation needs \`Authorization: Bearer <API key>\`. A missing or invalid key is answered
with 401 and \`WWW-Authenticate\` (RFC 6750) before anything else about the request is looked at. An expired or
revoked key is invalid from that moment on, on every instance (keys are checked on every request).

**Scopes.** A key carries scopes: \`pets:read\` (\`listPets\`, \`getPet\`), \`pets:write\` (\`createPet\`,
\`updatePet\`, \`deletePet\`), \`orders:read\` (\`listOrders\`, \`getOrder\`) and \`orders:write\` (\`placeOrder\`,
\`cancelOrder\`, \`completeOrder\`); all four unless it was created with fewer. Each operation names the scope it
needs in \`x-required-scope\` and in its description. A valid key without it gets 403 \`forbidden\` with
\`WWW-Authenticate: Bearer realm="petstore", error="insufficient_scope", scope="<scope>"\` (RFC 6750).

**Rate limits.** Each key has a quota of requests per fixed window (600 per 60 s unless the operator configures
otherwise), shared by every instance of the service; requests without a valid key are counted against the client's
address, with a smaller quota; once an address has spent it, its API requests are refused (429) for the rest of the
window before any key is looked up, a valid key included. Every response under \`/v1\` states the quota and what is
left of it (draft-ietf-httpapi-ratelimit-headers): \`RateLimit-Policy: "default";q=600;w=60\` and \`RateLimit:
"default";r=<remaining>;t=<seconds until the window resets>\`. Over quota, the answer is 429 \`rate_limited\` with
\`Retry-After\` (seconds). Browsers can read these headers (\`Access-Control-Expose-Headers\`).

**Pagination.** \`GET /pets\` returns pets in ascending \`id\` order. When more exist, the response carries \`Link:
<…/v1/pets?limit=…&status=…&cursor=…>; rel="next"\` (RFC 8288). The cursor is opaque, signed, and bound to the
\`status\` filter it was issued for; pages stay complete and duplicate-free while others insert. \`GET
/store/orders\` pages the same way (\`limit\` and \`cursor\`); a cursor of one collection is not accepted by the
other.

**Numbers.** Ids, \`categoryId\` and \`petId\` are integers from 1 to 2^53−1 (9007199254740991), the range every
JSON client reads exactly. A number the service could not read exactly (larger, or with a fraction or exponent where
an integer is expected) is refused with 400, never rounded.

**Defaults.** \`status\` omitted at creation means \`available\`. \`limit\` defaults to 20 (1 to 100). An order's
\`quantity\` defaults to 1 (1 to 100) and its \`shipDate\` to null.

**Deprecation.** \`GET /pets/{petId}\` is deprecated since 2026-01-01 (\`Deprecation: @1767225600\`, RFC 9745) and
will be removed on 2030-12-05 (\`Sunset\`, RFC 8594); use \`GET /pets\` instead.

**Idempotent retries.** \`createPet\`, \`updatePet\`, \`deletePet\`, \`placeOrder\` and \`completeOrder\` take an
optional \`Idempotency-Key\` header (draft-ietf-httpapi-idempotency-key-header): 1 to 255 visible ASCII characters,
new for each request (a random UUID, say). The response (status, body, \`Location\` and \`ETag\`) is stored in the
same database transaction as the request's effect. A retry with the same key and the same request (operation, path,
body compared as JSON values, and \`If-Match\`) gets that response again with \`Idempotent-Replayed: true\`, and
changes nothing; the same key with a different request is 422 \`idempotency_key_reused\`; a retry while the first
request is still being processed is 409 \`idempotency_key_in_flight\` with \`Retry-After\`. An error of the
operation itself (404, 409 \`conflict\`) is stored and replayed like a success; a server error (5xx) is not, so a
retry runs the request again. Keys belong to the API key that sent them and are remembered for 24 hours after the
response (the operator may configure longer). Without the header, requests are not deduplicated.

**Conditional requests.** Every response carrying one animal (\`GET\`, \`POST\` and \`PATCH\`) has a strong \`ETag\`
that changes exactly when the animal changes, an order moving its status included (RFC 9110 §8.8.3). \`PATCH\` and
\`DELETE /pets/{petId}\` take \`If-Match\` (one or more ETags, or \`*\`): when it does not name the current ETag, or
the animal is gone, the answer is 412 \`precondition_failed\` (with the current \`ETag\` when the animal exists) and
nothing changes, so two clerks editing the same animal cannot overwrite each other unknowingly. \`GET
/pets/{petId}\` takes \`If-None-Match\`: while it names the current ETag, the answer is 304 without a body.

**Errors.** Every error has the body \`{code, message, status}\` (plus \`details\` for invalid requests):

| code | status | meaning |
|---|---|---|
${errorTable}
`

export const openapiBase = {
  openapi: '3.1.0',
  info: {
    title: 'Petstore API',
    version: '1.0.0',
    description,
    contact: { name: 'Petstore API team', url: 'https://petstore.example.com/support' },
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [
    { url: 'https://petstore.example.com/v1', description: 'Production' },
    { url: 'https://staging.petstore.example.com/v1', description: 'Staging' },
  ],
  tags: [
    { name: 'Pets', description: 'The animals in the catalogue.' },
    {
      name: 'Store',
      description:
        'Orders for animals. An order is placed on an `available` animal (which becomes `pending`), then completed (animal `sold`) or cancelled (animal `available` again). Placing, reading, cancelling and completing orders are beta.',
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
}
