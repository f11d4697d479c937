import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { errorResponses, EVERY_OPERATION_ERRORS } from '../http/errors/error.schema.js'
import { ApiError } from '../http/errors/errors.js'
import { invalidKey } from '../http/auth/auth.js'
import { rejectOtherMethods } from '../http/errors/method-not-allowed.js'
import { API_PREFIX } from '../http/paths.js'
import { publicOrigin } from '../http/request/public-origin.js'
import { MAX_INT64_ID } from '../http/openapi/schema-primitives.js'
import { BETA, BETA_NOTE } from '../http/openapi/stability.js'
import { toEventList } from './event.mapper.js'
import { namedHeader } from '../http/openapi/openapi-names.js'
import { XAccelBufferingHeader } from '../http/openapi/response-headers.js'
import {
  DEFAULT_EVENT_PAGE_SIZE,
  isEventType,
  LAST_EVENT_ID_HEADER,
  ListEventsQuery,
  StreamEventsHeaders,
  StreamEventsQuery,
  type EventType,
  type eventSchemas,
} from './event.schema.js'
import type { EventService } from './event.service.js'
import { eventStreamBody } from './event-stream.js'

export interface EventRoutesOptions {
  events: EventService
  /** The Events schema, its data composed of the features' (eventSchemas): the answer of a page. */
  eventsSchema: ReturnType<typeof eventSchemas>['EventsSchema']
  heartbeatMs: number
  /** An open stream asks whether its key still holds at most this often (Tuning.eventStreamKeyRecheckMs). */
  keyRecheckMs: number
  publicBaseUrl: string | undefined
}

/** `types=pet.created,order.placed` (the schema's pattern admits event types only), or undefined: every type. */
function parseTypes(text: string | undefined): EventType[] | undefined {
  return text === undefined ? undefined : [...new Set(text.split(',').filter(isEventType))]
}

/** An AbortSignal that fires when the client goes away before its response is complete. */
function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort()
  })
  request.raw.once('error', () => controller.abort())
  return controller.signal
}

const EventsNextLinkHeader = namedHeader(
  'EventsNextLink',
  Type.String({
    description:
      'RFC 8288 link to poll next (`rel="next"`): the same query with `after` moved past what this page covered. ' +
      'Always present.',
    examples: ['<https://petstore.example.com/v1/events?after=4712&limit=100>; rel="next"'],
  }),
)

/** Two events and a heartbeat, as a stream sends them. */
const SSE_EXAMPLE =
  'id: 4711\nevent: pet.created\ndata: ' +
  '{"id":4711,"type":"pet.created","timestamp":"2026-05-01T08:00:00.000Z",' +
  '"data":{"pet":{"id":12,"name":"Rex","categoryId":3,"status":"available"}}}\n\n' +
  ': heartbeat\n\n' +
  'id: 4712\nevent: order.placed\ndata: ' +
  '{"id":4712,"type":"order.placed","timestamp":"2026-05-01T08:00:01.250Z",' +
  '"data":{"order":{"id":7,"petId":12,"quantity":1,"shipDate":null,"complete":false,"status":"placed"}}}\n\n'

/** The stop signal of a read that does not wait. */
const NEVER = new AbortController().signal

const holder = (request: FastifyRequest): string => request.principal?.keyId ?? 'anonymous'

const FEED_GUARANTEE =
  'Following `after` never skips an event: an event is listed only once every event with a smaller id is listed ' +
  'too, or will never exist, whichever instance committed it and in whatever order transactions committed.'

/**
 * Sends the event stream as the body. The route's response is documented as text (what the client reads), so its
 * typed reply takes only a string; Fastify itself sends any readable stream.
 */
function sendStream(reply: FastifyReply, body: Readable): FastifyReply {
  return reply.send(body)
}

export const eventRoutes: FastifyPluginAsyncTypebox<EventRoutesOptions> = async (
  app,
  { events, eventsSchema, heartbeatMs, keyRecheckMs, publicBaseUrl },
) => {
  app.get(
    '/events',
    {
      config: { scope: 'events:read' },
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: '[beta] List events (feed, long poll)',
        description:
          `${BETA_NOTE}\n\nEvery change, in ascending id order, after \`after\`. ${FEED_GUARANTEE} ` +
          'With `wait`, a long poll: when no event matches yet, the answer comes as soon as one is committed, or ' +
          '`[]` when the wait ends. ' +
          '`Link: rel="next"` is always present and carries the `after` to ask with next: keep following it. ' +
          "Long polls count against the key's open streams and long polls (429 beyond them).",
        ...BETA,
        querystring: ListEventsQuery,
        response: {
          200: {
            ...eventsSchema,
            description: 'A page of events (possibly empty).',
            headers: { Link: EventsNextLinkHeader },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'gone'),
        },
      },
    },
    async (request, reply) => {
      const { after = 0, limit = DEFAULT_EVENT_PAGE_SIZE, types: typeList, wait = 0 } = request.query
      const types = parseTypes(typeList)
      // HEAD (which Fastify answers with this handler) has no body to wait for.
      const waitMs = request.method === 'HEAD' ? 0 : wait * 1000
      const page = await events.list(
        { after, limit, types },
        { waitMs, holder: holder(request), stop: clientGone(request, reply) },
      )
      // The key was checked when the poll began; events committed while it waited are not for a key revoked, or
      // expired, meanwhile: it is asked again, as an open stream asks before it sends.
      if (waitMs > 0 && !(await app.stillAuthorized(request))) throw invalidKey()
      const next = new URLSearchParams({
        after: String(page.position),
        limit: String(limit),
        ...(typeList === undefined ? {} : { types: typeList }),
        ...(wait > 0 ? { wait: String(wait) } : {}),
      })
      reply.header('link', `<${publicOrigin(request, publicBaseUrl)}${API_PREFIX}/events?${String(next)}>; rel="next"`)
      return toEventList(page.events)
    },
  )

  app.get(
    '/events/stream',
    {
      config: { scope: 'events:read', acceptsAccessTokenQuery: true },
      schema: {
        operationId: 'streamEvents',
        tags: ['Events'],
        summary: '[beta] Stream events (Server-Sent Events)',
        description:
          `${BETA_NOTE}\n\nThe feed as a \`text/event-stream\` (Server-Sent Events): each event as \`id:\` (its ` +
          `id), \`event:\` (its type) and \`data:\` (the Event JSON, the same bytes as in the feed), ` +
          `as soon as it is committed. ${FEED_GUARANTEE} Resumes after \`Last-Event-ID\` (sent by an ` +
          `\`EventSource\` when it reconnects) or \`after\`; ` +
          `a comment line (\`: heartbeat\`) every ${heartbeatMs / 1000} s keeps an idle connection open; with ` +
          '`types`, a heartbeat after events of other types also carries `id:`, the position past them, which an ' +
          '`EventSource` keeps as its Last-Event-ID without dispatching anything. The ' +
          `stream ends when the service shuts down: reconnect (an \`EventSource\` does so by itself). Its key is ` +
          `checked again before events are sent (at most every ${keyRecheckMs / 1000} s) and before each heartbeat: ` +
          'once it is revoked or has expired, the stream ends with the comment `: the API key is no longer valid ' +
          'for this stream`, and reconnecting is refused like any request with that key. ' +
          "A browser's `EventSource` cannot send `Authorization`: it may pass the key as `access_token` instead. " +
          "Each open stream counts against the key's open streams and long polls (429 beyond them).",
        ...BETA,
        querystring: StreamEventsQuery,
        headers: StreamEventsHeaders,
        response: {
          200: {
            description:
              'The stream: `id: <event id>`, `event: <type>`, `data: <Event JSON>`, then an empty line, per event.',
            headers: { 'X-Accel-Buffering': XAccelBufferingHeader },
            content: {
              'text/event-stream': {
                schema: Type.String({ description: 'Server-Sent Events (HTML Living Standard, section 9.2).' }),
                example: SSE_EXAMPLE,
              },
            },
          },
          ...errorResponses(...EVERY_OPERATION_ERRORS, 'gone'),
        },
      },
    },
    async (request, reply) => {
      const lastEventId = request.headers[LAST_EVENT_ID_HEADER]
      const resumeAfter = typeof lastEventId === 'string' ? Number(lastEventId) : undefined
      if (resumeAfter !== undefined && !Number.isSafeInteger(resumeAfter)) {
        throw new ApiError('invalid_request', `Invalid request: header/last-event-id must be <= ${MAX_INT64_ID}`, {
          details: [{ path: 'header/last-event-id', message: `must be <= ${MAX_INT64_ID}` }],
        })
      }
      const after = resumeAfter ?? request.query.after ?? 0
      const types = parseTypes(request.query.types)
      // HEAD (which Fastify answers with this handler) sends no body: nothing to follow. Its position is checked
      // all the same (a page read, holding no place), so that it answers as GET would: 410 where GET is refused.
      const head = request.method === 'HEAD'
      if (head) await events.list({ after, limit: 1, types }, { waitMs: 0, holder: holder(request), stop: NEVER })
      const subscription = head ? undefined : await events.subscribe({ after, types }, holder(request))
      // Only once the stream is certain: a refusal (410, 429) is an Error body, without the stream's headers.
      reply.type('text/event-stream; charset=utf-8')
      // Proxies that buffer responses (nginx) would hold events back; this asks them not to (XAccelBufferingHeader).
      reply.header('x-accel-buffering', 'no')
      // An empty stream rather than '', whose length Fastify would state as 0: GET's stream has none, so HEAD's
      // headers have none either.
      if (subscription === undefined) return sendStream(reply, Readable.from([]))
      const body = eventStreamBody(subscription, {
        after,
        heartbeatMs,
        keyRecheckMs,
        stillAuthorized: () => app.stillAuthorized(request),
        onError: (error) => request.log.warn({ err: error }, 'event stream ended by an error'),
        onCheckFailed: (error) => request.log.warn({ err: error }, "event stream's key could not be checked"),
        unsent: () => reply.raw.writableLength,
      })
      // The documented body is text; it is sent as a stream of that text.
      return sendStream(reply, body)
    },
  )

  rejectOtherMethods(app, '/events', ['GET'])
  rejectOtherMethods(app, '/events/stream', ['GET'])
}
