// Long-lived readers and the rest of the service: 200 idle streams leave normal requests answered and each
// receive a new event once; and `petstore serve` stops on SIGTERM, ending its streams and long polls, without
// waiting for them (exit 0, within the grace period, which would otherwise end it with 1).
import assert from 'node:assert/strict'
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { openStream } from '../helpers/event-stream.js'
import { barrier, eventsBefore, waitForMetric } from '../helpers/events.js'
import { spawnServer } from '../helpers/process.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE } from '../helpers/store.js'

const STREAMS = 200

interface IdleStream {
  response: IncomingMessage
  /** Everything received so far. */
  text(): string
}

function openIdleStream(baseUrl: string, agent: Agent, after: number): Promise<IdleStream> {
  return new Promise((resolve, reject) => {
    httpRequest(
      `${baseUrl}/v1/events/stream?after=${after}`,
      { agent, headers: { authorization: `Bearer ${TEST_API_KEY}` } },
      (response) => {
        let received = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (received += chunk))
        if (response.statusCode !== 200) reject(new Error(`stream answered ${response.statusCode}`))
        else resolve({ response, text: () => received })
      },
    )
      .on('error', reject)
      .end()
  })
}

describe(`${STREAMS} idle event streams on ${TEST_STORE}`, () => {
  let server: TestServer
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })

  before(async () => {
    // One more place than the streams take: the barrier reads with long polls.
    server = await startTestServer({ env: { EVENT_STREAMS_PER_KEY: String(STREAMS + 1) } })
  })
  after(async () => {
    agent.destroy()
    await server.close()
  })

  it('leave normal requests answered, and each receives a new event once', async () => {
    const get = (path: string, init?: RequestInit) => server.request(path, init)
    const start = await barrier(get)
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, () => openIdleStream(server.baseUrl, agent, start)),
    )
    await waitForMetric(server, 'petstore_event_streams_open', STREAMS)

    // Normal traffic beside them: reads, writes and the feed, all answered. (Their latency against a run without
    // the streams is measured by the bench, not asserted here: npm run bench:events.)
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const response =
          index % 4 === 0
            ? await server.request('/v1/pets', { json: { name: `Beside ${index}`, categoryId: 1 } })
            : await server.request(index % 4 === 1 ? '/v1/events?limit=10' : '/v1/pets?limit=20')
        await response.arrayBuffer()
        return response.status
      }),
    )
    assert.deepEqual(new Set(statuses), new Set([200, 201]))

    // Every stream gets every one of the 25 creates, once, in order (and then the barrier's).
    const expected = (await eventsBefore(get, start)).map((event) => `id: ${event.id}\n`)
    assert.equal(expected.length, 25)
    for (const stream of streams) {
      while ((stream.text().match(/^id: /gm) ?? []).length <= expected.length)
        await new Promise((resolve) => setTimeout(resolve, 20))
      assert.deepEqual(
        stream
          .text()
          .match(/^id: \d+\n/gm)
          ?.slice(0, expected.length),
        expected,
      )
    }
    for (const stream of streams) stream.response.destroy()
    await waitForMetric(server, 'petstore_event_streams_open', 0)
  })
})

describe(`petstore serve on ${TEST_STORE}, stopped while event readers wait`, () => {
  it('ends its streams and long polls on SIGTERM and exits 0 (not forced after the grace period)', async () => {
    const database = await createTestDatabase()
    try {
      const server = await spawnServer({ DATABASE_URL: database.url, PETSTORE_API_KEYS: TEST_API_KEY })
      const headers = { authorization: `Bearer ${TEST_API_KEY}` }
      const stream = await openStream(`${server.baseUrl}/v1/events/stream`, headers)
      assert.equal(await stream.nextFrame(), ': events after 0')
      const waiting = fetch(`${server.baseUrl}/v1/events?wait=30`, { headers })
      await waitForMetric(server, 'petstore_event_long_polls_waiting', 1)
      server.child.kill('SIGTERM')
      await stream.ended()
      const answered = await waiting
      assert.equal(answered.status, 200)
      assert.deepEqual(await answered.json(), [])
      assert.equal(await server.exited, 0, server.output())
    } finally {
      await database.drop()
    }
  })
})
