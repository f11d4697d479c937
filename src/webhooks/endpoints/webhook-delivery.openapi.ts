// What a webhook receiver gets, as the document's OpenAPI 3.1 `webhooks` section: generators make receiver types
// from it (the payload is the feed's Event, referenced by name). Deliveries are not routes of this service, so
// this is written here rather than generated from a route schema.
import { BETA } from '../../http/openapi/stability.js'

/** The Standard Webhooks headers of every delivery (signature.ts writes them). */
const DELIVERY_HEADERS = [
  {
    name: 'webhook-id',
    description:
      "The event's id, `evt_` and its feed position: the same on every attempt, so a receiver de-duplicates by it.",
    example: 'evt_4711',
    schema: { type: 'string', pattern: '^evt_[0-9]{1,16}$', maxLength: 20 },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was signed, in seconds since 1970 (UTC). Refuse a delivery far from your clock.',
    example: '1777622400',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12 },
  },
  {
    name: 'webhook-signature',
    description:
      "One `v1,<base64 HMAC-SHA256>` per secret, space-separated (two during a secret rotation's overlap): " +
      'the Standard Webhooks signature of `<webhook-id>.<webhook-timestamp>.<body>`. Any one valid signature is ' +
      'enough.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$', maxLength: 400 },
  },
].map((header) => ({ ...header, in: 'header', required: true }))

export const DELIVERY_WEBHOOKS = {
  event: {
    post: {
      operationId: 'receiveEvent',
      tags: ['Webhooks'],
      summary: '[beta] An event, delivered to a registered endpoint',
      ...BETA,
      description:
        'Every committed change of a type the endpoint subscribes to is POSTed to its `url` as the Event the feed ' +
        "shows, signed with the endpoint's secret (Standard Webhooks). Verify the signature before trusting the " +
        'body, answer any 2xx quickly, and de-duplicate by `webhook-id`: a delivery is retried until a 2xx arrives ' +
        '(redirects are not followed), so the same event may come more than once, and events may arrive out of ' +
        'order (order them by `id`). **New event types may be added at any time: ignore a `type` you do not know.**',
      security: [],
      parameters: DELIVERY_HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } },
      },
      responses: {
        '2XX': { description: 'Received: the delivery is done. The body of the answer is ignored.' },
        default: {
          description:
            'Anything else, or no answer in time, is a failed attempt: the delivery is tried again later, and the ' +
            "attempt (with the start of the answer) shows in the endpoint's delivery log.",
        },
      },
    },
  },
}
