// LISTEN on a connection of its own: PostgreSQL delivers a NOTIFY to every session listening on its channel in
// the same database, once the notifying transaction commits. The connection is opened again after a failure
// (the server restarted, the network dropped); notifications sent meanwhile are lost, so each (re)connection
// is reported, for the listener to look at what it may have missed. Behind a proxy that pools by transaction
// nothing may arrive at all: listeners must keep working by polling, notifications only make them faster.
import type pg from 'pg'

export interface ListenHandlers {
  /** A NOTIFY on the channel from this store's schema (the payload names the schema that sent it). */
  onNotify(): void
  /** Listening (again): anything sent before now may have been missed. */
  onConnected(): void
  onError(error: unknown): void
}

export type Listen = (channel: string, handlers: ListenHandlers) => { close(): Promise<void> }

/** How long to wait before opening the connection again after it failed. */
const RECONNECT_DELAY_MS = 1000

/** Quoted as PostgreSQL's quote_ident would (always quoted). */
const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`

export function listenWith(newClient: () => pg.Client): Listen {
  return (channel, handlers) => {
    let closed = false
    let client: pg.Client | undefined
    let timer: NodeJS.Timeout | undefined

    const retry = (error: unknown) => {
      if (closed) return
      handlers.onError(error)
      const failed = client
      client = undefined
      failed?.end().catch(() => {})
      clearTimeout(timer)
      timer = setTimeout(() => void connect(), RECONNECT_DELAY_MS)
      timer.unref()
    }

    const connect = async () => {
      const connection = newClient()
      client = connection
      connection.on('error', (error) => {
        if (client === connection) retry(error)
      })
      try {
        await connection.connect()
        const { rows } = await connection.query<{ schema: string }>('select current_schema() as schema')
        const schema = rows[0]?.schema
        connection.on('notification', (message) => {
          if (message.channel === channel && message.payload === schema) handlers.onNotify()
        })
        connection.on('end', () => {
          if (client === connection) retry(new Error('the connection listening for notifications ended'))
        })
        await connection.query(`listen ${quoted(channel)}`)
        if (closed) await connection.end()
        else handlers.onConnected()
      } catch (error) {
        if (client === connection) retry(error)
      }
    }

    void connect()
    return {
      async close() {
        closed = true
        clearTimeout(timer)
        const open = client
        client = undefined
        await open?.end().catch(() => {})
      },
    }
  }
}
