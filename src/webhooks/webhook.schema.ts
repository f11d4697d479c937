import { Type, type Static } from 'typebox'
import type { AttemptOutcome, DeliveryStatus, WebhookStatus } from '../db/database.js'
import { EVENT_TYPES, EventTypeSchema } from '../events/event.schema.js'
import { named } from '../http/openapi-names.js'
import { CursorParameter, MAX_PAGE_SIZE, pageLimit } from '../http/pagination.js'
import { Int64Id } from '../http/schema-primitives.js'
import { MAX_URL_LENGTH } from './destination.js'
import { RESPONSE_BODY_LIMIT_BYTES } from './outbound-http.js'

export const MAX_DESCRIPTION_LENGTH = 500
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const satisfies readonly WebhookStatus[]
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies readonly DeliveryStatus[]
export const ATTEMPT_OUTCOMES = [
  'succeeded',
  'unexpected_status',
  'timed_out',
  'network_error',
  'destination_refused',
  'interrupted',
  'event_gone',
  'internal_error',
] as const satisfies readonly AttemptOutcome[]

// The longest date-time the service writes: RFC 3339, UTC, milliseconds (`2026-05-01T08:00:00.000Z`).
const DATE_TIME_LENGTH = 24
const DateTime = (description: string, example: string) =>
  Type.String({ format: 'date-time', maxLength: DATE_TIME_LENGTH, description, examples: [example] })
const Nullable = <T>(schema: Record<string, unknown> & { type: string }, description: string) =>
  Type.Unsafe<T | null>({ ...schema, type: [schema.type, 'null'], description })
const NullableDateTime = (description: string, example: string | null) =>
  Nullable<string>(
    { type: 'string', format: 'date-time', maxLength: DATE_TIME_LENGTH, examples: [example] },
    description,
  )

const URL_EXAMPLE = 'https://hooks.example.com/petstore'
const Url = Type.String({
  format: 'uri',
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    `Where deliveries are POSTed: an \`http\` or \`https\` URL (at most ${MAX_URL_LENGTH} characters), without ` +
    'user name, password or fragment. ' +
    'It must lead to a public address: a URL naming a loopback, private, link-local, shared (CGNAT), multicast ' +
    'or reserved address (or `localhost`) is refused with 400, ' +
    'and a host name is resolved again at every attempt, which is refused (and retried later) while it resolves ' +
    'to such an address. Redirects are not followed.',
  examples: [URL_EXAMPLE],
})

const EventTypeList = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
})
const TYPES_MEANING = `The event types delivered (${EVENT_TYPES.map((type) => `\`${type}\``).join(', ')})`
const TYPES_EXAMPLE = ['pet.created', 'order.placed']

// Printable text: control characters would garble the CLI's tab-separated listing and operators' terminals.
// No control characters (Unicode Cc: U+0000–U+001F, U+007F–U+009F) and no unpaired surrogates (Cs), written as
// code point ranges rather than `\p{Cc}\p{Cs}` (the same set with the `u` flag), which not every dialect reads.
const Description = Type.String({
  maxLength: MAX_DESCRIPTION_LENGTH,
  pattern: '^[^\\x00-\\x1F\\x7F-\\x9F\\uD800-\\uDFFF]*$',
})
const DESCRIPTION_EXAMPLE = 'Stock sync (warehouse team)'

export const WebhookStatusSchema = named(
  'WebhookStatus',
  Type.Unsafe<(typeof WEBHOOK_STATUSES)[number]>({
    type: 'string',
    enum: [...WEBHOOK_STATUSES],
    description:
      '`enabled`: events are delivered. `disabled`: no delivery is made for events committed meanwhile, and ' +
      'deliveries already pending wait until the endpoint is enabled again.',
    examples: ['enabled'],
  }),
)

export const NewWebhookSchema = named(
  'NewWebhook',
  Type.Object(
    {
      url: Url,
      types: Type.Optional({
        ...EventTypeList,
        description: `${TYPES_MEANING}; every type, those added later included, when absent.`,
        examples: [TYPES_EXAMPLE],
      }),
      description: Type.Optional({
        ...Description,
        description: `A note for people (at most ${MAX_DESCRIPTION_LENGTH} characters, no control characters).`,
        examples: [DESCRIPTION_EXAMPLE],
      }),
    },
    {
      additionalProperties: false,
      description:
        'An endpoint to deliver events to. It is enabled at once and receives the events committed from then on, ' +
        'none of those before. Properties not listed here are refused.',
      examples: [{ url: URL_EXAMPLE, types: TYPES_EXAMPLE, description: DESCRIPTION_EXAMPLE }],
    },
  ),
)

export const WebhookPatchSchema = named(
  'WebhookPatch',
  Type.Object(
    {
      url: Type.Optional(Url),
      types: Type.Optional(
        Type.Unsafe<(typeof EVENT_TYPES)[number][] | null>({
          ...EventTypeList,
          type: ['array', 'null'],
          description: `${TYPES_MEANING} from now on; null: every type.`,
          examples: [TYPES_EXAMPLE],
        }),
      ),
      description: Type.Optional(
        Type.Unsafe<string | null>({
          ...Description,
          type: ['string', 'null'],
          description: 'The note; null removes it.',
          examples: [DESCRIPTION_EXAMPLE],
        }),
      ),
      status: Type.Optional(WebhookStatusSchema),
    },
    {
      additionalProperties: false,
      minProperties: 1,
      description:
        'The properties to change (a JSON Merge Patch, RFC 7396): at least one. The others stay as they are; ' +
        'unknown properties are refused.',
      examples: [{ types: null, status: 'disabled' }],
    },
  ),
)

const WEBHOOK_EXAMPLE = {
  id: 3,
  url: URL_EXAMPLE,
  types: TYPES_EXAMPLE,
  description: DESCRIPTION_EXAMPLE,
  status: 'enabled',
  createdAt: '2026-05-01T08:00:00.000Z',
  updatedAt: '2026-05-01T08:00:00.000Z',
  previousSecretExpiresAt: null,
}
const SECRET_EXAMPLE = 'whsec_Yjpj6MLCUlX3XjlDX5IcJu3zNv+ttetN2/iAIC/U5OQ='

const webhookProperties = {
  id: { ...Int64Id, description: 'Assigned by the service (1 to 2^53−1); never reused.', examples: [3] },
  url: { ...Url, description: 'Where deliveries are POSTed.' },
  types: Type.Unsafe<(typeof EVENT_TYPES)[number][] | null>({
    ...EventTypeList,
    type: ['array', 'null'],
    description: `${TYPES_MEANING}, or null: every type.`,
    examples: [TYPES_EXAMPLE],
  }),
  description: Nullable<string>(
    { ...Description, type: 'string', examples: [DESCRIPTION_EXAMPLE] },
    'The note given, or null.',
  ),
  status: WebhookStatusSchema,
  createdAt: DateTime('When the endpoint was registered (RFC 3339, UTC, milliseconds).', '2026-05-01T08:00:00.000Z'),
  updatedAt: DateTime('When it was last changed, its secret rotated included.', '2026-05-01T08:00:00.000Z'),
  previousSecretExpiresAt: NullableDateTime(
    'After a rotation: until when the previous secret signs beside the current one (a second `v1,…` in ' +
      '`webhook-signature`); null if the secret was never rotated.',
    '2026-05-02T08:00:00.000Z',
  ),
}

/**
 * Responses, so open to additive change (no additionalProperties: false); the serialiser still sends exactly these
 * properties.
 */
export const WebhookSchema = named(
  'Webhook',
  Type.Object(webhookProperties, {
    description: 'A webhook endpoint. Its secret is shown only when it is created and when it is rotated.',
    examples: [WEBHOOK_EXAMPLE],
  }),
)

// `whsec_` and 32 bytes in base64 (44 characters) today; the bound leaves room for a longer key later.
const MAX_SECRET_LENGTH = 128

export const WebhookWithSecretSchema = named(
  'WebhookWithSecret',
  Type.Object(
    {
      ...webhookProperties,
      secret: Type.String({
        maxLength: MAX_SECRET_LENGTH,
        pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
        description:
          'The signing secret (Standard Webhooks: `whsec_` and base64). Shown only in this response: store it ' +
          'now. Give it to a Standard Webhooks library to verify deliveries.',
        examples: [SECRET_EXAMPLE],
      }),
    },
    {
      description: 'The endpoint, with its signing secret (shown only now).',
      examples: [{ ...WEBHOOK_EXAMPLE, secret: SECRET_EXAMPLE }],
    },
  ),
)

export const WebhooksSchema = named(
  'Webhooks',
  Type.Array(WebhookSchema, {
    maxItems: MAX_PAGE_SIZE,
    description: 'A page of endpoints in ascending id order, without their secrets.',
    examples: [
      [
        WEBHOOK_EXAMPLE,
        {
          ...WEBHOOK_EXAMPLE,
          id: 5,
          url: 'https://crm.example.org/hooks/petstore',
          types: null,
          description: null,
          status: 'disabled',
          updatedAt: '2026-05-03T09:30:00.000Z',
        },
      ],
    ],
  }),
)

export const AttemptOutcomeSchema = named(
  'AttemptOutcome',
  Type.Unsafe<(typeof ATTEMPT_OUTCOMES)[number]>({
    type: 'string',
    enum: [...ATTEMPT_OUTCOMES],
    description:
      'How an attempt ended: `succeeded` (a 2xx in time); `unexpected_status` (any other status, redirects ' +
      'included); `timed_out`; `network_error` (no connection, reset…); ' +
      '`destination_refused` (the host resolved to a non-public address); `interrupted` (the instance that had ' +
      'taken it stopped before recording an outcome, whether or not it had sent the request; retried once its ' +
      'lease ended); ' +
      '`event_gone` (the event was purged before it could be delivered); `internal_error` (the service could not ' +
      'make the request, e.g. its stored secret cannot be decrypted: see the logs).',
    examples: ['unexpected_status'],
  }),
)

const FAILED_ATTEMPT_EXAMPLE = {
  attempt: 1,
  startedAt: '2026-05-01T08:00:00.120Z',
  durationMs: 184,
  outcome: 'unexpected_status',
  responseStatus: 503,
  error: 'the receiver answered 503; only 2xx is success',
  responseBody: 'Service Unavailable',
}
const SUCCEEDED_ATTEMPT_EXAMPLE = {
  attempt: 2,
  startedAt: '2026-05-01T08:00:05.300Z',
  durationMs: 96,
  outcome: 'succeeded',
  responseStatus: 204,
  error: null,
  responseBody: null,
}

// Bounds the service keeps anyway, stated for clients (and OWASP API4): an error is one short sentence, the
// response body is cut at RESPONSE_BODY_LIMIT_BYTES of UTF-8 (so at most as many characters).
const MAX_ERROR_LENGTH = 1024
const MAX_INT32 = 2_147_483_647

export const AttemptSchema = named(
  'DeliveryAttempt',
  Type.Object(
    {
      attempt: Type.Integer({
        format: 'int32',
        minimum: 1,
        maximum: MAX_INT32,
        description: 'Its number: 1 for the first attempt.',
        examples: [1],
      }),
      startedAt: DateTime('When it began.', '2026-05-01T08:00:00.120Z'),
      durationMs: Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: MAX_INT32,
        description: 'How long it took, in milliseconds.',
        examples: [184],
      }),
      outcome: AttemptOutcomeSchema,
      responseStatus: Nullable<number>(
        { type: 'integer', format: 'int32', minimum: 100, maximum: 999, examples: [503] },
        "The receiver's HTTP status, or null when none arrived.",
      ),
      error: Nullable<string>(
        { type: 'string', maxLength: MAX_ERROR_LENGTH, examples: ['the receiver answered 503; only 2xx is success'] },
        'Why it did not succeed, or null.',
      ),
      responseBody: Nullable<string>(
        { type: 'string', maxLength: RESPONSE_BODY_LIMIT_BYTES, examples: ['Service Unavailable'] },
        `The start of the response body (at most ${RESPONSE_BODY_LIMIT_BYTES / 1024} KiB, as UTF-8 text), or ` +
          'null when it was empty.',
      ),
    },
    { description: 'One attempt of a delivery.', examples: [FAILED_ATTEMPT_EXAMPLE] },
  ),
)

export const DeliveryStatusSchema = named(
  'DeliveryStatus',
  Type.Unsafe<(typeof DELIVERY_STATUSES)[number]>({
    type: 'string',
    enum: [...DELIVERY_STATUSES],
    description:
      '`pending` (an attempt is due or in progress), `succeeded`, or `failed` (every retry of the schedule failed).',
    examples: ['succeeded'],
  }),
)

const DELIVERY_EXAMPLE = {
  id: 88,
  eventId: 4711,
  webhookId: 'evt_4711',
  status: 'succeeded',
  nextAttemptAt: null,
  createdAt: '2026-05-01T08:00:00.000Z',
  finishedAt: '2026-05-01T08:00:05.396Z',
  attempts: [FAILED_ATTEMPT_EXAMPLE, SUCCEEDED_ATTEMPT_EXAMPLE],
}
const PENDING_DELIVERY_EXAMPLE = {
  id: 89,
  eventId: 4712,
  webhookId: 'evt_4712',
  status: 'pending',
  nextAttemptAt: '2026-05-01T08:00:06.250Z',
  createdAt: '2026-05-01T08:00:01.250Z',
  finishedAt: null,
  attempts: [{ ...FAILED_ATTEMPT_EXAMPLE, startedAt: '2026-05-01T08:00:01.300Z' }],
}

export const DeliverySchema = named(
  'WebhookDelivery',
  Type.Object(
    {
      id: { ...Int64Id, description: "The delivery's id (one event to one endpoint).", examples: [88] },
      eventId: { ...Int64Id, description: 'The event delivered (see `GET /events`).', examples: [4711] },
      webhookId: Type.String({
        maxLength: 20,
        pattern: '^evt_[1-9][0-9]*$',
        description: 'The `webhook-id` header it is sent with, `evt_<event id>`: the same on every attempt and retry.',
        examples: ['evt_4711'],
      }),
      status: DeliveryStatusSchema,
      nextAttemptAt: NullableDateTime(
        'Pending: when the next attempt is due; null while an attempt is in progress, and once finished.',
        null,
      ),
      createdAt: DateTime(
        'When the event was committed, and the delivery created with it.',
        '2026-05-01T08:00:00.000Z',
      ),
      finishedAt: NullableDateTime('When it succeeded or failed; null while pending.', '2026-05-01T08:00:05.396Z'),
      attempts: Type.Array(AttemptSchema, {
        maxItems: MAX_INT32,
        description: 'Its attempts that have ended, in order.',
      }),
    },
    { description: 'One event to one endpoint: its state and its attempts.', examples: [DELIVERY_EXAMPLE] },
  ),
)

export const DeliveriesSchema = named(
  'WebhookDeliveries',
  Type.Array(DeliverySchema, {
    maxItems: MAX_PAGE_SIZE,
    description: 'A page of deliveries, newest first.',
    examples: [[PENDING_DELIVERY_EXAMPLE, DELIVERY_EXAMPLE]],
  }),
)

export const ListWebhooksQuery = Type.Object(
  {
    limit: pageLimit('endpoints'),
    cursor: Type.Optional(CursorParameter('Cursors of other collections are not accepted here.')),
  },
  { additionalProperties: false },
)

export const ListDeliveriesQuery = Type.Object(
  {
    limit: pageLimit('deliveries'),
    status: Type.Optional({ ...DeliveryStatusSchema, description: 'Only deliveries with this status.' }),
    cursor: Type.Optional(CursorParameter('Bound to the `status` filter it was issued for.')),
  },
  { additionalProperties: false },
)

const WebhookId = { ...Int64Id, description: "The endpoint's id (1 to 2^53−1).", examples: [3] }

export const WebhookIdParams = Type.Object({ webhookId: WebhookId }, { additionalProperties: false })

export const DeliveryParams = Type.Object(
  {
    webhookId: WebhookId,
    deliveryId: { ...Int64Id, description: "The delivery's id (1 to 2^53−1).", examples: [88] },
  },
  { additionalProperties: false },
)

export type NewWebhook = Static<typeof NewWebhookSchema>
export type WebhookPatch = Static<typeof WebhookPatchSchema>
export type Webhook = Static<typeof WebhookSchema>
export type WebhookWithSecret = Static<typeof WebhookWithSecretSchema>
export type Delivery = Static<typeof DeliverySchema>
export type Attempt = Static<typeof AttemptSchema>
