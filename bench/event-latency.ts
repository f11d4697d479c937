// npm run bench:events: how soon a committed change reaches the event feed's readers (a waiting long poll and an
// open stream), and what idle streams cost the other requests. The service runs as npm start runs it, on a fresh
// store (SQLite, or a schema on --postgres), on loopback.
//
// Latency: a writer creates pets at a steady rate; one stream and one long-poll loop follow the feed. For each
// event the reader's arrival time is compared with the writer's: from the 201 (the commit acknowledged; the event
// can arrive before it, which counts as 0) and from sending the request (an upper bound of commit-to-delivery).
import { randomBytes } from 'node:crypto'
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http'
import { parseArgs } from 'node:util'
import { median, runLoad, type Measurement } from './load.js'
import { describeMachine, describeRevision } from './machine.js'
import {
  installCleanup,
  makeTempDirectory,
  removeTempDirectory,
  ROOT,
  startService,
  startWatchdog,
  type RunningServer,
} from './processes.js'
import { markdownTable } from './report.js'
import { createStore, type BenchStore } from './seed.js'

const HELP = `Usage: npm run bench:events -- [options]
  --postgres URL     on PostgreSQL (a fresh schema on that server) instead of SQLite
  --seconds S        seconds of writes for the latency measurement (20)
  --rate N           creates per second meanwhile (100)
  --instances N      1: readers on the writer's instance; 2: on another instance, woken by its poll (1)
  --streams N        idle streams for the comparison of other requests beside them; 0 skips it (200)
  --rounds N         rounds of that comparison, each without and with the streams (3)
  --duration S       seconds per measurement of that comparison (10)
  --connections N    autocannon connections for it (50)
  --dir DIR          where the temporary databases go (default: the OS temporary directory)
  --time-limit MIN   abort, cleaning up, after this many minutes (15)`

const { values: options } = parseArgs({
  options: {
    postgres: { type: 'string' },
    seconds: { type: 'string', default: '20' },
    rate: { type: 'string', default: '100' },
    instances: { type: 'string', default: '1' },
    streams: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    dir: { type: 'string' },
    'time-limit': { type: 'string', default: '15' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
})

function whole(name: string, value: string | undefined, minimum = 1): number {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < minimum)
    throw new Error(`--${name} must be an integer of at least ${minimum}, not ${JSON.stringify(value)}`)
  return parsed
}

const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))
const agent = new Agent({ keepAlive: true, maxSockets: Infinity })

interface Timed {
  sent: number
  acknowledged: number
}

function call(baseUrl: string, key: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}${path}`,
      {
        method: payload === undefined ? 'GET' : 'POST',
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}

/** The pet id each event carries (every event here is a pet.created). */
const petIdOf = (eventJson: string) => (JSON.parse(eventJson) as { data: { pet: { id: number } } }).data.pet.id

/** Follows the stream from `after`, calling `arrived(petId, time)` for each event as its bytes come in. */
function followStream(
  baseUrl: string,
  key: string,
  after: number,
  arrived: (petId: number, at: number) => void,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    httpRequest(
      `${baseUrl}/v1/events/stream?after=${after}`,
      { agent, headers: { authorization: `Bearer ${key}` } },
      (response) => {
        let buffered = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          const at = performance.now()
          buffered += chunk
          let end: number
          while ((end = buffered.indexOf('\n\n')) !== -1) {
            const data = buffered
              .slice(0, end)
              .split('\n')
              .find((line) => line.startsWith('data: '))
            buffered = buffered.slice(end + 2)
            if (data) arrived(petIdOf(data.slice(6)), at)
          }
        })
        if (response.statusCode === 200) resolve(response)
        else reject(new Error(`the stream answered ${response.statusCode}`))
      },
    )
      .on('error', reject)
      .end()
  })
}

/** Long polls from `after` until `stopped()`, calling `arrived` for each event when its response has come. */
async function followLongPolls(
  baseUrl: string,
  key: string,
  after: number,
  arrived: (petId: number, at: number) => void,
  stopped: () => boolean,
): Promise<void> {
  let position = after
  while (!stopped()) {
    const response = await call(baseUrl, key, `/v1/events?after=${position}&limit=1000&wait=1`)
    const at = performance.now()
    if (response.status !== 200) throw new Error(`the long poll answered ${response.status}: ${response.text}`)
    for (const event of JSON.parse(response.text) as { id: number; data: { pet: { id: number } } }[]) {
      arrived(event.data.pet.id, at)
      position = event.id
    }
  }
}

function percentiles(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN }
}

async function measureLatency(
  writer: RunningServer,
  reader: RunningServer,
  key: string,
  seconds: number,
  rate: number,
) {
  const writes = new Map<number, Timed>()
  const arrivals = { stream: new Map<number, number>(), longPoll: new Map<number, number>() }
  const stream = await followStream(reader.baseUrl, key, 0, (petId, at) => arrivals.stream.set(petId, at))
  let following = true
  const longPolls = followLongPolls(
    reader.baseUrl,
    key,
    0,
    (petId, at) => arrivals.longPoll.set(petId, at),
    () => !following,
  )
  await sleep(500)

  const pending: Promise<void>[] = []
  const deadline = performance.now() + seconds * 1000
  for (let index = 0; performance.now() < deadline; index++) {
    const sent = performance.now()
    pending.push(
      call(writer.baseUrl, key, '/v1/pets', { name: `Latency ${index}`, categoryId: 1 }).then(({ status, text }) => {
        if (status !== 201) throw new Error(`create answered ${status}: ${text}`)
        writes.set((JSON.parse(text) as { id: number }).id, { sent, acknowledged: performance.now() })
      }),
    )
    // Paced by the clock, not by the answers: a slow answer does not slow the rate down.
    await sleep(Math.max(0, sent + 1000 / rate - performance.now()))
  }
  await Promise.all(pending)
  const settled = performance.now() + 10_000
  while ((arrivals.stream.size < writes.size || arrivals.longPoll.size < writes.size) && performance.now() < settled)
    await sleep(50)
  following = false
  await longPolls
  stream.destroy()

  const rows = (['stream', 'longPoll'] as const).map((reader) => {
    const fromAcknowledged: number[] = []
    const fromSent: number[] = []
    let first = 0
    for (const [petId, write] of writes) {
      const arrived = arrivals[reader].get(petId)
      if (arrived === undefined) continue
      if (arrived < write.acknowledged) first++
      fromAcknowledged.push(Math.max(0, arrived - write.acknowledged))
      fromSent.push(arrived - write.sent)
    }
    return {
      reader,
      received: fromAcknowledged.length,
      first,
      fromAcknowledged: percentiles(fromAcknowledged),
      fromSent: percentiles(fromSent),
    }
  })
  return { writes: writes.size, rows }
}

function openIdleStreams(baseUrl: string, key: string, count: number): Promise<IncomingMessage[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<IncomingMessage>((resolve, reject) => {
          httpRequest(
            `${baseUrl}/v1/events/stream?types=order.completed`,
            { agent: new Agent({ keepAlive: false }), headers: { authorization: `Bearer ${key}` } },
            (response) => {
              response.resume()
              if (response.statusCode === 200) resolve(response)
              else reject(new Error(`an idle stream answered ${response.statusCode}`))
            },
          )
            .on('error', reject)
            .end()
        }),
    ),
  )
}

const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a')

function latencyReport(latency: Awaited<ReturnType<typeof measureLatency>>): string {
  const table = markdownTable(
    [
      'reader',
      'events',
      'before the 201',
      'p50 ms from 201',
      'p99 ms from 201',
      'max ms from 201',
      'p50 ms from send',
      'p99 ms from send',
    ],
    latency.rows.map((row) => [
      row.reader === 'stream' ? 'open stream' : 'waiting long poll',
      String(row.received),
      String(row.first),
      fixed(row.fromAcknowledged.p50),
      fixed(row.fromAcknowledged.p99),
      fixed(row.fromAcknowledged.max),
      fixed(row.fromSent.p50),
      fixed(row.fromSent.p99),
    ]),
  )
  const verdicts = latency.rows.map((row) => {
    const ok = row.received === latency.writes && row.fromAcknowledged.p50 <= 20 && row.fromAcknowledged.p99 <= 100
    return (
      `- ${row.reader === 'stream' ? 'stream' : 'long poll'}: commit to delivery p50 ≤ 20 ms, p99 ≤ 100 ms: ` +
      `${fixed(row.fromAcknowledged.p50)} / ${fixed(row.fromAcknowledged.p99)} ms from the 201 ` +
      `(${fixed(row.fromSent.p50)} / ${fixed(row.fromSent.p99)} ms from sending the create) → ` +
      `${ok ? 'met' : 'NOT met'}`
    )
  })
  return [table, ...verdicts].join('\n')
}

/** list 20 under load, without and beside `streams` idle streams, in interleaved rounds. */
async function besideIdleStreams(
  server: RunningServer,
  key: string,
  settings: { streams: number; rounds: number; duration: number; connections: number },
): Promise<string> {
  const { streams, rounds, duration, connections } = settings
  const load = () =>
    runLoad({
      url: server.baseUrl,
      connections,
      durationSeconds: duration,
      headers: { authorization: `Bearer ${key}` },
      requests: [{ method: 'GET', path: '/v1/pets?limit=20' }],
    })
  const without: Measurement[] = []
  const beside: Measurement[] = []
  await load()
  const measureBeside = async () => {
    const idle = await openIdleStreams(server.baseUrl, key, streams)
    await sleep(500)
    beside.push(await load())
    for (const stream of idle) stream.destroy()
    await sleep(500)
  }
  for (let round = 1; round <= rounds; round++) {
    // In turn first and second, so that whatever the second run of a round suffers (a warmer heap) hurts both.
    if (round % 2 === 0) await measureBeside()
    without.push(await load())
    if (round % 2 === 1) await measureBeside()
    log(
      `round ${round}/${rounds}: p99 ${without.at(-1)?.p99.toFixed(2)} ms without, ` +
        `${beside.at(-1)?.p99.toFixed(2)} ms beside ${streams} idle streams`,
    )
  }
  const row = (label: string, runs: Measurement[]) => [
    label,
    Math.round(median(runs.map((run) => run.requestsPerSecond))).toLocaleString('en-US'),
    median(runs.map((run) => run.p50)).toFixed(2),
    median(runs.map((run) => run.p99)).toFixed(2),
    String(runs.reduce((sum, run) => sum + run.errors + Object.values(run.unexpected).reduce((a, b) => a + b, 0), 0)),
  ]
  return (
    `\nlist 20, ${connections} connections, ${rounds} rounds × ${duration} s (median), without and beside ` +
    `${streams} idle streams\n\n` +
    markdownTable(
      ['', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx/errors'],
      [row('without streams', without), row(`beside ${streams} idle streams`, beside)],
    )
  )
}

async function main(): Promise<void> {
  if (options.help) {
    console.log(HELP)
    return
  }
  const seconds = whole('seconds', options.seconds)
  const rate = whole('rate', options.rate)
  const instanceCount = whole('instances', options.instances)
  const streams = whole('streams', options.streams, 0)
  const rounds = whole('rounds', options.rounds)
  const duration = whole('duration', options.duration)
  const connections = whole('connections', options.connections)
  installCleanup()
  startWatchdog(whole('time-limit', options['time-limit']))
  log(`bench:events: ${describeMachine()}`)

  const directory = makeTempDirectory(options.dir)
  const key = `bench_${randomBytes(16).toString('hex')}`
  const servers: RunningServer[] = []
  let store: BenchStore | undefined
  try {
    store = await createStore({ directory, name: 'events', postgresUrl: options.postgres })
    const databaseUrl = store.databaseUrl
    for (let index = 0; index < instanceCount; index++) {
      servers.push(
        await startService({
          name: `service ${index + 1}`,
          databaseUrl,
          apiKey: key,
          logPath: '/dev/null',
          env: { EVENT_STREAMS_PER_KEY: String(streams + 10), MIGRATE_ON_START: 'false' },
        }),
      )
    }
    const writer = servers[0]
    const reader = servers.at(-1)
    if (!writer || !reader) throw new Error('no service started')

    log(
      `bench:events: ${rate} creates/s for ${seconds} s, readers on ` +
        `${instanceCount === 1 ? "the writer's instance" : 'another instance'}`,
    )
    const latency = await measureLatency(writer, reader, key, seconds, rate)
    console.log(
      `\n${describeMachine().replace(/, load average.*/, '')}; ${store.kind}; service at ${describeRevision(ROOT)}`,
    )
    console.log(
      `${latency.writes} creates at ${rate}/s over ${seconds} s; readers on ` +
        `${instanceCount === 1 ? 'the same instance' : 'a second instance'}\n`,
    )
    console.log(latencyReport(latency))
    if (streams > 0) {
      log(`bench:events: other requests without and with ${streams} idle streams, ${rounds} rounds × ${duration} s`)
      console.log(await besideIdleStreams(writer, key, { streams, rounds, duration, connections }))
    }
  } finally {
    agent.destroy()
    for (const server of servers) await server.stop()
    await store?.drop().catch((error: unknown) => log(`bench:events: could not drop the store: ${String(error)}`))
    removeTempDirectory(directory)
  }
}

main().catch((error: unknown) => {
  log(`bench:events: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
