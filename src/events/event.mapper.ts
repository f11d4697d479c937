import type { EventType } from '../db/database.js'
import { withJsonText } from '../http/json/prepared-json.js'
import type { EventRow } from './event.repository.js'
import type { Event } from './event.schema.js'

/** An event as the service passes it around: what filters and positions need, and its JSON text. */
export interface FeedEvent {
  id: number
  type: EventType
  /** The Event's JSON text: the bytes the feed, the stream (and webhooks) send. */
  json: string
}

/**
 * The one place a row becomes the API's Event: the same keys in the same order as the Event schema, with
 * `data` as it was stored (the resource as the API showed it right after the change).
 */
export function toFeedEvent(row: EventRow): FeedEvent {
  const id = Number(row.id)
  return {
    id,
    type: row.type,
    json:
      `{"id":${id},"type":${JSON.stringify(row.type)},` +
      `"timestamp":${JSON.stringify(row.occurred_at)},"data":${row.data}}`,
  }
}

/** Events as the response value, its JSON text kept with it (prepared-json.ts) so it is not serialised again. */
export function toEventList(events: readonly FeedEvent[]): Event[] {
  const text = `[${events.map((event) => event.json).join(',')}]`
  return withJsonText(JSON.parse(text) as Event[], text)
}
