// The schemas of webhook endpoints: registering, changing and listing them.
import { Type, type Static } from 'typebox'
import type { WebhookStatus } from '../../db/database.js'
import { EVENT_TYPES, EventTypeSchema } from '../../events/event.schema.js'
import { named } from '../../http/openapi/openapi-names.js'
import { CursorParameter, MAX_PAGE_SIZE, pageLimit } from '../../http/pagination.js'
import { Int64Id } from '../../http/openapi/schema-primitives.js'
import { withPatternRule } from '../../http/validation/validation-details.js'
import { MAX_URL_LENGTH } from '../destination.js'
import { DateTime, Nullable, NullableDateTime, WebhookId } from './webhook-schema-parts.js'

const MAX_DESCRIPTION_LENGTH = 500
const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const satisfies readonly WebhookStatus[]

// Under the reserved .example top-level domain (RFC 2606), which never resolves: the docs page's "Try it out"
// registers an endpoint with this example, and the shop's events must not go to a host that exists.
const URL_EXAMPLE = 'https://hooks.shop.example/petstore'
const Url = Type.String({
  format: 'uri',
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    `Where deliveries are POSTed: an \`http://\` or \`https://\` URL (at most ${MAX_URL_LENGTH} characters), ` +
    'without user name, password or fragment, and without spaces, control characters (percent-encode them) or ' +
    'backslashes. ' +
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
const Description = withPatternRule(
  Type.String({
    maxLength: MAX_DESCRIPTION_LENGTH,
    pattern: '^[^\\x00-\\x1F\\x7F-\\x9F\\uD800-\\uDFFF]*$',
  }),
  'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or unpaired surrogates',
)
// What a client sends may not hold bidirectional override and isolate characters either (U+202A–U+202E,
// U+2066–U+2069), refused in animal and category names too: they make a note display as other text in a listing.
// Descriptions stored before this rule are still answered as they are, so the response keeps the wider pattern.
const NewDescription = withPatternRule(
  Type.String({
    maxLength: MAX_DESCRIPTION_LENGTH,
    pattern: '^[^\\x00-\\x1F\\x7F-\\x9F\\uD800-\\uDFFF\\u202A-\\u202E\\u2066-\\u2069]*$',
  }),
  'must not contain control characters (U+0000–U+001F, U+007F–U+009F), unpaired surrogates or bidirectional ' +
    'override and isolate characters (U+202A–U+202E, U+2066–U+2069)',
)
const DESCRIPTION_EXAMPLE = 'Stock sync (warehouse team)'

const WebhookStatusSchema = named(
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
        ...NewDescription,
        description:
          `A note for people (at most ${MAX_DESCRIPTION_LENGTH} characters, no control characters or ` +
          'bidirectional override characters).',
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
          ...NewDescription,
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
  updatedAt: DateTime(
    'When it was last changed, its secret rotated included (a patch that changes nothing leaves it).',
    '2026-05-01T08:00:00.000Z',
  ),
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

export const ListWebhooksQuery = Type.Object(
  {
    limit: pageLimit('endpoints'),
    cursor: Type.Optional(CursorParameter('Cursors of other collections are not accepted here.')),
  },
  { additionalProperties: false },
)

export const WebhookIdParams = Type.Object({ webhookId: WebhookId }, { additionalProperties: false })

export type NewWebhook = Static<typeof NewWebhookSchema>
export type WebhookPatch = Static<typeof WebhookPatchSchema>
export type Webhook = Static<typeof WebhookSchema>
export type WebhookWithSecret = Static<typeof WebhookWithSecretSchema>
