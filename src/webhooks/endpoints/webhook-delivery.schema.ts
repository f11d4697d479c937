// The schemas of webhook deliveries and their attempts, as the delivery log routes answer them.
import { Type, type Static } from 'typebox'
import type { AttemptOutcome, DeliveryStatus } from '../../db/database.js'
import { named } from '../../http/openapi/openapi-names.js'
import { CursorParameter, MAX_PAGE_SIZE, pageLimit } from '../../http/pagination.js'
import { Int64Id } from '../../http/openapi/schema-primitives.js'
import { RESPONSE_BODY_LIMIT_BYTES } from '../delivery/receiver-answer.js'
import { DateTime, Nullable, NullableDateTime, WebhookId } from './webhook-schema-parts.js'

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies readonly DeliveryStatus[]
const ATTEMPT_OUTCOMES = [
  'succeeded',
  'unexpected_status',
  'timed_out',
  'network_error',
  'destination_refused',
  'interrupted',
  'event_gone',
  'internal_error',
] as const satisfies readonly AttemptOutcome[]

const AttemptOutcomeSchema = named(
  'AttemptOutcome',
  Type.Unsafe<(typeof ATTEMPT_OUTCOMES)[number]>({
    type: 'string',
    enum: [...ATTEMPT_OUTCOMES],
    description:
      'How an attempt ended: `succeeded` (a 2xx in time); `unexpected_status` (any other status, redirects ' +
      'included); `timed_out`; `network_error` (no connection, reset…); `destination_refused` (the host resolved ' +
      'to a non-public address); `interrupted` (the instance that had taken it stopped before the answer: it ' +
      'died, whether or not it had sent the request, and the attempt was retried once its lease ended; or it was ' +
      'shut down after sending the request, and the attempt was retried at once); `event_gone` (the event ' +
      'was purged before it could be delivered); `internal_error` (the service could not make the request, e.g. ' +
      'its stored secret cannot be decrypted: see the logs).',
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

const AttemptSchema = named(
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

const DeliveryStatusSchema = named(
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
        'Pending: when the next attempt is due; while the endpoint is disabled, the attempt waits past that time ' +
          'until the endpoint is enabled again. Null while an attempt is in progress, and once finished.',
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

export const ListDeliveriesQuery = Type.Object(
  {
    limit: pageLimit('deliveries'),
    status: Type.Optional({ ...DeliveryStatusSchema, description: 'Only deliveries with this status.' }),
    cursor: Type.Optional(CursorParameter("Bound to this webhook's log and to the `status` filter it was issued for.")),
  },
  { additionalProperties: false },
)

export const DeliveryParams = Type.Object(
  {
    webhookId: WebhookId,
    deliveryId: { ...Int64Id, description: "The delivery's id (1 to 2^53−1).", examples: [88] },
  },
  { additionalProperties: false },
)

export type Delivery = Static<typeof DeliverySchema>
