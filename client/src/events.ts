// The change feed: a page of it, following it with long polls, and the Server-Sent Events stream.
import { dataOf, type CallOptions, type Context } from './context.js'
import { nextLinkParameter } from './headers.js'
import { mayPassLater, pauseAfterFailure } from './outlast.js'
import { backoffMs, sleep } from './retry.js'
import type { Event, EventType, ListEventsQuery } from './schemas.js'
import { readServerSentEvents, type ServerSentEvent } from './sse.js'

export interface EventQuery {
  /** Only events after this id (default 0: from the oldest kept). */
  after?: number
  /** Only events of these types (default: every type). An empty list is refused: leave it out for every type. */
  types?: EventType[]
}

export interface ListEventsOptions extends EventQuery, Omit<ListEventsQuery, 'after' | 'types'> {}

export interface FollowOptions extends EventQuery, CallOptions {
  /** Events per request, 1 to 1000 (default 100). */
  limit?: number
  /** Seconds each long poll waits for a new event (default 30, the most the service allows; it may allow less). */
  wait?: number
}

export interface StreamOptions extends EventQuery, CallOptions {}

export interface EventPage {
  /** Events in ascending id order (possibly none). */
  events: Event[]
  /** The `after` to ask with next (from `Link: rel="next"`): following it never skips an event. */
  nextAfter: number
}

export interface EventsApi {
  /** [beta] One page of the feed; with `wait`, a long poll that answers as soon as an event exists. */
  list(query?: ListEventsOptions, options?: CallOptions): Promise<EventPage>
  /**
   * [beta] Every event from `after` on, as they happen (long polls, following `after`); ends only by `signal` or
   * `break`, or by a failure no retry can mend (401, 403, 410). Once answered, it waits out a service that is
   * down or unreachable for a while; a failure before the first answer is thrown.
   */
  follow(options?: FollowOptions): AsyncGenerator<Event, void, undefined>
  /**
   * [beta] Every event from `after` on, as they happen, over Server-Sent Events; reconnects with `Last-Event-ID`
   * when the stream ends (the service shutting down), so no event is missed. Ends only by `signal` or `break`, or
   * by a failure no retry can mend (401, 403, 410). Once a stream has opened, it waits out a service that is down
   * or unreachable for a while; a failure before the first stream opens is thrown.
   */
  stream(options?: StreamOptions): AsyncGenerator<Event, void, undefined>
}

const DEFAULT_FOLLOW_WAIT_SECONDS = 30
/** The least pause after an empty page that did not wait, however small the retry policy's backoff is. */
const MIN_EMPTY_POLL_MS = 100

export function eventsApi(context: Context): EventsApi {
  const { api, transport, retry } = context
  const list = async (
    { types, ...query }: ListEventsOptions = {},
    { signal }: CallOptions = {},
  ): Promise<EventPage> => {
    const answer = await api.GET('/events', {
      params: { query: { ...query, ...typesParameter(types) } },
      signal,
      fetch: transport.fetchFor({ operationId: 'listEvents', expectedDurationMs: (query.wait ?? 0) * 1000 }),
    })
    const events = dataOf(answer)
    const after = Number(nextLinkParameter(answer.response.headers, 'after') ?? Number.NaN)
    return { events, nextAfter: Number.isSafeInteger(after) ? after : (events.at(-1)?.id ?? query.after ?? 0) }
  }
  return {
    list,
    async *follow({ after = 0, types, limit, wait = DEFAULT_FOLLOW_WAIT_SECONDS, signal } = {}) {
      for (let position = after, quickEmpties = 0, answered = false, failures = 0; ;) {
        const asked = Date.now()
        let page: EventPage
        try {
          page = await list(
            { after: position, ...(types ? { types } : {}), ...(limit === undefined ? {} : { limit }), wait },
            { ...(signal ? { signal } : {}) },
          )
        } catch (error) {
          // Once answered, a service that is down for a while is waited for (outlast.ts).
          if (!answered || signal?.aborted || !mayPassLater(error)) throw error
          await sleep(pauseAfterFailure(error, retry, ++failures), signal)
          continue
        }
        answered = true
        failures = 0
        yield* page.events
        position = page.nextAfter
        // An empty page that came back well before `wait` means the service waits less (its cap may be 0): asking
        // again at once would spin, so back off, longer each time, until an event or a real wait comes.
        const quick = page.events.length === 0 && Date.now() - asked < Math.max((wait * 1000) / 2, MIN_EMPTY_POLL_MS)
        quickEmpties = quick ? quickEmpties + 1 : 0
        if (quick) await sleep(Math.max(MIN_EMPTY_POLL_MS, backoffMs(retry, quickEmpties)), signal)
      }
    },
    stream: (options = {}) => streamEvents(context, options),
  }
}

/**
 * The `types` query parameter. An empty list would be sent as `types=`, which the service refuses with 400 on
 * every call: refused here instead, before anything is sent, since nobody means "no type at all".
 */
function typesParameter(types: EventType[] | undefined): { types?: string } {
  if (types === undefined) return {}
  if (types.length === 0) throw new RangeError('types must name at least one event type; leave it out for every type')
  return { types: types.join(',') }
}

async function* streamEvents(
  { api, transport, retry }: Context,
  { after, types, signal }: StreamOptions,
): AsyncGenerator<Event, void, undefined> {
  const typesQuery = typesParameter(types)
  // Ours to abort: ending the iteration (break, return) closes the connection even when the caller has no signal.
  const connection = new AbortController()
  const stop = () => connection.abort(signal?.reason)
  if (signal?.aborted) stop()
  signal?.addEventListener('abort', stop, { once: true })
  let lastEventId: string | undefined
  let reconnectMs: number | undefined
  try {
    // Each turn is one connection. Failures to connect are the transport's: it retries them within the policy and
    // then throws, which ends the iteration before the first stream opened; after it, one that may pass later is
    // waited for (outlast.ts). A stream that opened (200) and then ended, cleanly or not, is reconnected (the
    // service shutting down ends streams): only the pause grows while streams end without an event.
    for (let quietEnds = 0, answered = false, failures = 0; ;) {
      let body: unknown
      try {
        const answer = await api.GET('/events/stream', {
          params: {
            query: {
              ...(after === undefined ? {} : { after }),
              ...typesQuery,
            },
            header: lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId },
          },
          headers: { Accept: 'text/event-stream' },
          parseAs: 'stream',
          signal: connection.signal,
          fetch: transport.fetchFor({ operationId: 'streamEvents', streams: true }),
        })
        body = dataOf(answer)
      } catch (error) {
        // Once a stream has opened, a service that is down for a while is waited for (outlast.ts).
        if (!answered || connection.signal.aborted || !mayPassLater(error)) throw error
        await sleep(pauseAfterFailure(error, retry, ++failures), connection.signal)
        continue
      }
      answered = true
      failures = 0
      let received = false
      const messages = readServerSentEvents(body as ReadableStream<Uint8Array>, {
        onRetry: (ms) => {
          reconnectMs = ms
        },
      })
      try {
        for (;;) {
          let next: IteratorResult<ServerSentEvent, void>
          try {
            next = await messages.next()
          } catch (error) {
            // Only the connection failing is reconnected (a stream lost mid-way); an abort is the caller's decision.
            if (connection.signal.aborted) throw error
            break
          }
          if (next.done === true) break
          // Parsed before the position moves: an event that is not JSON is an error, never skipped on reconnect.
          const event = JSON.parse(next.value.data) as Event
          lastEventId = next.value.lastEventId || lastEventId
          received = true
          // An error the consumer throws in here (generator.throw) ends the iteration; the finally closes the stream.
          yield event
        }
      } finally {
        // Closes this connection's reader when the iteration ends early (an error, break).
        await messages.return()
      }
      quietEnds = received ? 0 : quietEnds + 1
      await sleep(reconnectMs ?? backoffMs(retry, Math.max(1, quietEnds)), connection.signal)
    }
  } finally {
    signal?.removeEventListener('abort', stop)
    connection.abort()
  }
}
