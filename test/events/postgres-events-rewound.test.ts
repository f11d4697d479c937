// The database going back in time under a running instance: an earlier copy restored and put in its place while
// the service kept running, or a failover to a standby that had not received the last commits. The ids the feed
// had handed out are given again, to other events. A reader already waiting past them must be told (410, as a
// reader asking from there anew is), not kept waiting until ids pass its position and then handed the events
// after it, the ones given its old ids skipped unseen. The rewind is made here as such a restore leaves the feed:
// its newest events are gone.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { DOMAIN_MESSAGES } from '../../src/domain/errors.js'
import { assertError } from '../helpers/error-assert.js'
import { openStream } from '../helpers/event-stream.js'
import { barrier, readWholeFeed, waitForMetric } from '../helpers/events.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const auth = { authorization: `Bearer ${TEST_API_KEY}` }

describe('event followers when the PostgreSQL database goes back in time under the service', () => {
  let server: TestServer
  const get = (path: string, init?: RequestInit) => server.request(path, init)
  /** The feed as an earlier copy of the database has it: every event after `kept` is gone. */
  const rewindTo = (kept: number) => sql`delete from events where id > ${kept}`.execute(server.store.admin)

  before(async () => {
    server = await startTestServer()
  })
  after(async () => {
    await server.close()
  })

  it('answers a waiting long poll 410, naming the newest id now', async () => {
    await barrier(get)
    const newest = await barrier(get)
    const waiting = get(`/v1/events?after=${newest}&wait=30`)
    await waitForMetric(server, 'petstore_event_long_polls_waiting', 1)
    await rewindTo(newest - 1)

    await assertError(await waiting, {
      status: 410,
      code: 'gone',
      message: DOMAIN_MESSAGES.eventsAhead(newest - 1, newest),
    })
  })

  it('ends a waiting stream instead of skipping the events given its ids again', async () => {
    await barrier(get)
    const newest = await barrier(get)
    const stream = await openStream(`${server.baseUrl}/v1/events/stream?after=${newest}`, auth)
    assert.equal(await stream.nextFrame(), `: events after ${newest}`)
    await rewindTo(newest - 2)
    // Ended, or an event it should not have sent (ended() refuses any frame but a comment).
    const ended = stream.ended().then(
      () => 'ended',
      (error: unknown) => error,
    )

    // Writes until the feed's ids have passed the stream's position again.
    const created: number[] = []
    for (let id = 0; id <= newest;) {
      id = await barrier(get, newest - 2)
      created.push(id)
    }
    assert.equal(await ended, 'ended')
    assert.deepEqual(created, [newest - 1, newest, newest + 1])
    assert.deepEqual(
      (await readWholeFeed(get, newest - 2)).map((event) => event.id),
      created,
    )
    // An end the service expects, not a fault of its own: no warning in its log.
    assert.deepEqual(
      server.logs.filter((line) => line.includes('event stream ended by an error')),
      [],
    )
    await stream.close()
  })
})
