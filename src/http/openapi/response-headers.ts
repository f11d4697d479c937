// Every response header the API sends, as route schemas declare it and so as the OpenAPI document lists it:
// once, under `components.headers`, referenced by each response that carries it.
import { Type } from 'typebox'
import { namedHeader } from './openapi-names.js'
import { EXPOSED_HEADERS } from '../request/cors.js'

/** Headers every response under /v1 carries (added to each documented response by the document's route transform). */
export const EVERY_RESPONSE_HEADERS = {
  'RateLimit-Policy': namedHeader(
    'RateLimitPolicy',
    Type.String({
      description:
        'The quota that applies (draft-ietf-httpapi-ratelimit-headers): `"default";q=<requests>;w=<window ' +
        'seconds>`. Sent on every response under /v1 to a request that counts (not OPTIONS, nor one refused ' +
        'before its key is read, nor the 408 of a body that arrives too slowly), unless the shared rate-limit ' +
        'store is unreachable (then requests are not counted).',
      examples: ['"default";q=600;w=60'],
    }),
  ),
  RateLimit: namedHeader(
    'RateLimit',
    Type.String({
      description:
        'What is left of the quota: `"default";r=<remaining requests>;t=<seconds until the window resets>`. Sent ' +
        'with `RateLimit-Policy`.',
      examples: ['"default";r=597;t=42'],
    }),
  ),
  'Access-Control-Allow-Origin': namedHeader(
    'AccessControlAllowOrigin',
    Type.Literal('*', {
      description: "CORS: any web page may call the API (the API key, not the page's origin, grants access).",
      examples: ['*'],
    }),
  ),
  'Access-Control-Expose-Headers': namedHeader(
    'AccessControlExposeHeaders',
    Type.String({
      maxLength: 512,
      description: `CORS: the response headers a browser lets scripts read: \`${EXPOSED_HEADERS.join(', ')}\`.`,
      examples: [EXPOSED_HEADERS.join(', ')],
    }),
  ),
  'X-Request-Id': namedHeader(
    'XRequestId',
    Type.String({
      description:
        "The id of this request in the service's logs: the client's own `X-Request-Id` when it sent a usable one " +
        '(1 to 128 of `A-Z a-z 0-9 . _ : -`), otherwise a UUID the service made. Quote it when reporting a ' +
        'problem.',
      examples: ['9b2f7c1e-8a4d-4f0e-b6a2-3c5d7e9f1a2b'],
    }),
  ),
}

export const RetryAfterHeader = namedHeader(
  'RetryAfter',
  Type.Integer({
    format: 'int32',
    minimum: 1,
    maximum: 86_400,
    description:
      'Seconds to wait before retrying (RFC 9110 §10.2.3): until the rate-limit window resets (429), until a ' +
      'request with the same Idempotency-Key is likely done (409), or before trying another instance or the same ' +
      'one again (503).',
    examples: [30],
  }),
)

export const WwwAuthenticateHeader = namedHeader(
  'WWWAuthenticate',
  Type.String({
    description:
      'RFC 6750 challenge. 401: `Bearer realm="petstore"`, with `error="invalid_token"` when a Bearer key was ' +
      'sent but is not valid (without an error code when none was, or another scheme was used). 403: `Bearer ' +
      'realm="petstore", error="insufficient_scope", scope="<the scope the operation requires>"`.',
    examples: ['Bearer realm="petstore"'],
  }),
)

export const ETagHeader = namedHeader(
  'ETag',
  Type.String({
    description:
      'Strong entity tag of the animal as it is now (e.g. `"12.3"`): it changes exactly when the animal changes ' +
      '(an order moving its status included). Send it back in `If-Match` to change the animal only if nobody ' +
      'changed it meanwhile. Opaque: compare it, do not parse it. On 412, present when the animal still exists.',
    examples: ['"12.3"'],
  }),
)

export const LocationHeader = namedHeader(
  'Location',
  Type.String({
    description: 'Absolute URL of the resource just created: the animal, order or webhook endpoint.',
    examples: ['https://petstore.example.com/v1/pets/12'],
  }),
)

export const IdempotentReplayedHeader = namedHeader(
  'IdempotentReplayed',
  Type.Literal('true', {
    description:
      'Present (`true`) only on a replay: the stored response of an earlier request with the same ' +
      'Idempotency-Key; nothing was done again.',
    examples: ['true'],
  }),
)

export const NextPageLinkHeader = namedHeader(
  'NextPageLink',
  Type.String({
    description:
      'RFC 8288 link to the next page (`rel="next"`), present only when more exist. Follow it as it is: its ' +
      'cursor is opaque.',
    examples: ['<https://petstore.example.com/v1/pets?limit=20&cursor=eyJhIjoyMH0.c2lnbmF0dXJl>; rel="next"'],
  }),
)

export const AllowHeader = namedHeader(
  'Allow',
  Type.String({
    description: 'The methods the path supports (RFC 9110 §10.2.1).',
    examples: ['GET, POST, HEAD'],
  }),
)

export const AcceptEncodingHeader = namedHeader(
  'AcceptEncoding',
  Type.Literal('identity', {
    description:
      'On a 415 answered for a `Content-Encoding` other than `identity` (gzip, br, …): the one content coding the ' +
      'service reads (RFC 7694), so send the body without one. Absent when the 415 is about the media type or ' +
      'the charset.',
    examples: ['identity'],
  }),
)

export const AcceptPatchHeader = namedHeader(
  'AcceptPatch',
  Type.String({
    description:
      'On the 415 of a PATCH sent with a media type it does not take (a JSON Patch, say): the patch formats it ' +
      'takes (RFC 5789 section 2.2), `application/merge-patch+json, application/json`. Absent when the 415 is ' +
      'about the charset or the content coding.',
    examples: ['application/merge-patch+json, application/json'],
  }),
)

export const XAccelBufferingHeader = namedHeader(
  'XAccelBuffering',
  Type.Literal('no', {
    description:
      'Asks a proxy that buffers responses (nginx) to pass the event stream on as it comes. Meant for proxies; ' +
      'clients need not read it.',
    examples: ['no'],
  }),
)
