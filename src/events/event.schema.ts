// The feed's contract. The event log knows no resource: each feature contributes the schema of its events' data
// (EventDataContribution, in its `<name>.events.ts`), and the composition on top builds the Event schema from
// them once (eventSchemas, called by src/event-document.ts).
import { Type, type TObject, type TUnion } from 'typebox'
import type { EventType } from '../db/database.js'
import { documentedAs, named } from '../http/openapi/openapi-names.js'
import { MAX_INT64_ID } from '../http/openapi/schema-primitives.js'
import { withPatternRule } from '../http/validation/validation-details.js'

export type { EventType }

export const EVENT_TYPES = [
  'pet.created',
  'pet.updated',
  'pet.deleted',
  'order.placed',
  'order.cancelled',
  'order.completed',
  'category.created',
  'category.updated',
  'category.deleted',
] as const satisfies readonly EventType[]

export const DEFAULT_EVENT_PAGE_SIZE = 100
const MAX_EVENT_PAGE_SIZE = 1000
const MAX_WAIT_SECONDS = 30

export function isEventType(text: string): text is EventType {
  return (EVENT_TYPES as readonly string[]).includes(text)
}

const TYPE_LIST = EVENT_TYPES.map((type) => `\`${type}\``).join(', ')

/** What a feature adds to the Event schema: the event types it records, and the schema of their `data`. */
export interface EventDataContribution {
  types: readonly EventType[]
  /** Named (`PetEventData`), with an example of the data. */
  data: TObject
}

/** An event as the feed shows it. */
export interface Event {
  id: number
  type: EventType
  timestamp: string
  data: Record<string, unknown>
}

export const EventTypeSchema = named(
  'EventType',
  Type.Unsafe<EventType>({
    type: 'string',
    enum: [...EVENT_TYPES],
    description: `What happened: ${TYPE_LIST}.`,
    examples: ['pet.created'],
  }),
)

/**
 * The Event and Events schemas, their `data` one of the contributions (in the order given), `examples` the
 * events that illustrate them (the first one illustrates a single Event). Every event type is contributed by
 * exactly one feature, or this throws: a type without a schema would be sent undocumented. Built once per
 * process: the schemas are named.
 */
export function eventSchemas(contributions: readonly EventDataContribution[], examples: readonly Event[]) {
  const contributed = contributions.flatMap(({ types }) => types)
  const missing = EVENT_TYPES.filter((type) => !contributed.includes(type))
  const twice = contributed.filter((type, index) => contributed.indexOf(type) !== index)
  if (missing.length > 0 || twice.length > 0 || contributed.length !== EVENT_TYPES.length)
    throw new Error(`the event data schemas must cover each event type once (missing ${missing}, twice ${twice})`)
  const EventSchema = named(
    'Event',
    Type.Object(
      {
        id: Type.Integer({
          format: 'int64',
          minimum: 1,
          maximum: MAX_INT64_ID,
          description:
            "The event's position in the feed: consecutive (each event's id is the previous one's + 1) in the " +
            'order events become visible, never reused, and kept by backups, restores and moves. Events written ' +
            'before ids became consecutive keep the ids they had, which may skip numbers.',
          examples: [4711],
        }),
        type: EventTypeSchema,
        timestamp: Type.String({
          format: 'date-time',
          maxLength: 24,
          description: 'When the change was made: RFC 3339, UTC, with milliseconds.',
          examples: ['2026-05-01T08:00:00.000Z'],
        }),
        // Typed as one object schema: which one only the event's type tells.
        data: Type.Union(
          contributions.map(({ data }) => data),
          { description: 'The changed resource as it was right after the change.' },
        ) as TUnion<[TObject]>,
      },
      {
        description:
          'One committed change. Written in the same transaction as the change: a committed change always has ' +
          'its event, a refused or rolled-back one never does. ' +
          "An order that moves its animal's status also writes a `pet.updated` event, in the same transaction.",
        examples: examples.slice(0, 1),
      },
    ),
  )
  const EventsSchema = named(
    'Events',
    Type.Array(EventSchema, {
      maxItems: MAX_EVENT_PAGE_SIZE,
      description: 'Events in ascending id order.',
      examples: [examples],
    }),
  )
  return { EventSchema, EventsSchema }
}

const After = Type.Integer({
  format: 'int64',
  minimum: 0,
  maximum: MAX_INT64_ID,
  description:
    'Only events with a greater id: the id of the last event already seen (0, the default: from the oldest event ' +
    'kept). Take it from the previous response\'s `Link: rel="next"`. An `after` older than the events kept (see ' +
    'retention), or beyond the newest event (a database restored from an earlier copy), is 410 `gone`: ' +
    'resynchronise and start again at 0.',
  examples: [4711],
})

// One type, escaped for a regular expression; the list is one or more of them, comma-separated.
const TYPE_PATTERN = `(?:${EVENT_TYPES.map((type) => type.replace('.', '\\.')).join('|')})`

const Types = withPatternRule(
  Type.String({
    maxLength: 256,
    pattern: `^${TYPE_PATTERN}(?:,${TYPE_PATTERN})*$`,
    description: `Only events of these types: a comma-separated list of ${TYPE_LIST}. An unknown type is 400.`,
    examples: ['pet.created,order.placed'],
  }),
  `must be a comma-separated list of event types, without spaces: ${EVENT_TYPES.join(', ')}`,
)

export const ListEventsQuery = Type.Object(
  {
    after: Type.Optional(After),
    limit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 1,
        maximum: MAX_EVENT_PAGE_SIZE,
        default: DEFAULT_EVENT_PAGE_SIZE,
        description:
          `Maximum number of events returned (1 to ${MAX_EVENT_PAGE_SIZE}, ` + `default ${DEFAULT_EVENT_PAGE_SIZE}).`,
        examples: [DEFAULT_EVENT_PAGE_SIZE],
      }),
    ),
    types: Type.Optional(Types),
    wait: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: MAX_WAIT_SECONDS,
        default: 0,
        description:
          `Long poll: when no event after \`after\` exists yet, wait up to this many seconds (0 to ` +
          `${MAX_WAIT_SECONDS}; the operator may allow less) and answer as soon as one is committed; \`[]\` when ` +
          'the wait ends without one.',
        examples: [25],
      }),
    ),
  },
  { additionalProperties: false },
)

const AccessToken = Type.String({
  minLength: 1,
  maxLength: 512,
  description:
    "The API key, for clients that cannot send `Authorization` (a browser's `EventSource`): accepted on this " +
    'operation only, never together with the header. ' +
    "It is redacted from the service's logs, but a URL may be kept by proxies and browser history: prefer the " +
    'header wherever the client can send it. ' +
    'Only visible ASCII can be a key: anything else is refused as an invalid key (401).',
  examples: ['pst_4dGz0pQk8sT2vW6yB1cE3fH5jL7nR9uX'],
})

export const StreamEventsQuery = Type.Object(
  {
    after: Type.Optional(After),
    types: Type.Optional(Types),
    access_token: Type.Optional(documentedAs(AccessToken, { ...AccessToken, pattern: '^[\\x21-\\x7E]+$' })),
  },
  { additionalProperties: false },
)

export const LAST_EVENT_ID_HEADER = 'last-event-id'

const LastEventId = withPatternRule(
  Type.String({
    pattern: '^(0|[1-9][0-9]{0,15})$',
    description:
      'Sent by an `EventSource` when it reconnects: the id of the last event it received. The stream resumes ' +
      'after it; it takes precedence over `after`.',
    examples: ['4711'],
  }),
  'must be an event id: 0 or a decimal integer without leading zeros, at most 16 digits',
)

export const StreamEventsHeaders = Type.Object({
  // The pattern bounds the length; the document says so outright too.
  'Last-Event-ID': Type.Optional(documentedAs(LastEventId, { ...LastEventId, maxLength: 16 })),
})
