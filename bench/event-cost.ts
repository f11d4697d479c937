// npm run bench:event-cost: what the event log costs, in interleaved rounds on one store kind (SQLite, or
// PostgreSQL with --postgres), each build or variant on a fresh store of its own, on loopback.
//
// creates: POST /v1/pets on this build, against this build on a store whose events table drops every row
// inserted into it (a BEFORE INSERT trigger): the same requests, statements and numbering attempts, without the
// event's row, its indexes, its WAL and its numbering. The trigger's own call is counted in the "without" figure,
// so the ratio slightly flatters the event-less side.
// feed: GET /v1/events?after=…&limit=… at random positions over --events events, on this build against the
// --before build (each store migrated by its own build, filled with the same events as that build writes them:
// on this build's PostgreSQL without ids, numbered by the service at start, as after real writes).
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { median, runLoad, type LoadRequest, type Measurement } from './load.js'
import { describeMachine, describeRevision } from './machine.js'
import {
  installCleanup,
  makeTempDirectory,
  removeTempDirectory,
  ROOT,
  startService,
  startWatchdog,
} from './processes.js'
import type { RunningServer } from './processes.js'
import { markdownTable } from './report.js'
import { createStore, type BenchStore } from './seed.js'
import { DROP_EVENT_ROWS, execute, fillEvents } from './event-cost-stores.js'
import { shippedCommand } from './shipped-command.js'

const HELP = `Usage: npm run bench:event-cost -- [options]
  --postgres URL     on PostgreSQL (fresh schemas on that server) instead of SQLite
  --scenarios LIST   creates,feed (both)
  --before DIR       a built checkout of an earlier revision, for the feed comparison (feed needs it)
  --events N         events in the feed's stores (100000)
  --limit N          events per feed page (100)
  --rounds N         interleaved rounds (5)
  --duration S       seconds per measurement (5)
  --connections N    autocannon connections (50)
  --dir DIR          where the temporary databases go (default: the OS temporary directory)
  --time-limit MIN   abort, cleaning up, after this many minutes (20)`

const { values: options } = parseArgs({
  options: {
    postgres: { type: 'string' },
    scenarios: { type: 'string', default: 'creates,feed' },
    before: { type: 'string' },
    events: { type: 'string', default: '100000' },
    limit: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    dir: { type: 'string' },
    'time-limit': { type: 'string', default: '20' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
})

function whole(name: string, value: string | undefined): number {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer`)
  return parsed
}

const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

/** Waits until the service lists event `count` (numbered, on this build's PostgreSQL). */
async function waitForEvent(server: RunningServer, key: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const response = await fetch(`${server.baseUrl}/v1/events?after=${count - 1}`, {
      headers: { authorization: `Bearer ${key}` },
    })
    const events = (await response.json()) as unknown[]
    if (response.status === 200 && events.length === 1) return
    await sleep(100)
  }
  throw new Error(`${server.name} did not list event ${count}`)
}

interface Variant {
  label: string
  server: RunningServer
  runs: Measurement[]
}

/** Measures the variants in `rounds` rounds, in turn first and last, so that a round's drift hurts each alike. */
async function interleaved(variants: Variant[], key: string, requests: LoadRequest[], settings: Settings) {
  const load = (server: RunningServer) =>
    runLoad({
      url: server.baseUrl,
      connections: settings.connections,
      durationSeconds: settings.duration,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      requests,
    })
  for (const variant of variants) await load(variant.server)
  for (let round = 1; round <= settings.rounds; round++) {
    const order = round % 2 === 1 ? variants : [...variants].reverse()
    for (const variant of order) variant.runs.push(await load(variant.server))
    const rates = variants.map(
      (variant) => `${variant.label} ${Math.round(variant.runs.at(-1)?.requestsPerSecond ?? 0)}`,
    )
    log(`round ${round}: ${rates.join(', ')} req/s`)
  }
}

function report(title: string, variants: [Variant, Variant]): string {
  const [first, second] = variants
  const rates = (variant: Variant) => variant.runs.map((run) => run.requestsPerSecond)
  const pairs = first.runs.map((run, index) => run.requestsPerSecond / (second.runs[index]?.requestsPerSecond ?? NaN))
  const bad = (runs: Measurement[]) =>
    runs.reduce((sum, run) => sum + run.errors + Object.values(run.unexpected).reduce((a, b) => a + b, 0), 0)
  const rows = variants.map((variant) => [
    variant.label,
    Math.round(median(rates(variant))).toLocaleString('en-US'),
    median(variant.runs.map((run) => run.p50)).toFixed(2),
    median(variant.runs.map((run) => run.p99)).toFixed(2),
    String(bad(variant.runs)),
  ])
  const ratio = median(rates(first)) / median(rates(second))
  return [
    `\n${title}\n`,
    markdownTable(['', 'req/s (median)', 'p50 ms', 'p99 ms', 'non-2xx/errors'], rows),
    `\nratio of medians ${ratio.toFixed(2)}; paired ${median(pairs).toFixed(2)}; ` +
      `rounds ${pairs.map((pair) => pair.toFixed(2)).join(', ')}`,
  ].join('\n')
}

interface Settings {
  rounds: number
  duration: number
  connections: number
}

async function main(): Promise<void> {
  if (options.help) return console.log(HELP)
  const scenarios = new Set(options.scenarios.split(','))
  const unknown = [...scenarios].filter((scenario) => scenario !== 'creates' && scenario !== 'feed')
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')} (creates, feed)`)
  const settings = {
    rounds: whole('rounds', options.rounds),
    duration: whole('duration', options.duration),
    connections: whole('connections', options.connections),
  }
  const eventCount = whole('events', options.events)
  const limit = whole('limit', options.limit)
  if (limit >= eventCount) throw new Error('--limit must be smaller than --events')
  if (scenarios.has('feed') && !options.before) throw new Error('the feed scenario needs --before DIR')
  installCleanup()
  startWatchdog(whole('time-limit', options['time-limit']))
  log(`bench:event-cost: ${describeMachine()}`)
  const directory = makeTempDirectory(options.dir)
  const key = `bench_${randomBytes(16).toString('hex')}`
  const servers: RunningServer[] = []
  const stores: BenchStore[] = []
  const serve = async (name: string, cli?: string) => {
    const store = await createStore({ directory, name, postgresUrl: options.postgres, ...(cli ? { cli } : {}) })
    stores.push(store)
    return store
  }
  const start = async (name: string, store: BenchStore, script?: string) => {
    const server = await startService({
      name,
      databaseUrl: store.databaseUrl,
      apiKey: key,
      logPath: '/dev/null',
      env: { MIGRATE_ON_START: 'false' },
      ...(script ? { script } : {}),
    })
    servers.push(server)
    return server
  }
  try {
    console.log(`\n${describeMachine().replace(/, load average.*/, '')}; service at ${describeRevision(ROOT)}`)
    if (scenarios.has('creates')) {
      const withEvents = await start('with events', await serve('with-events'))
      const dropped = await serve('without-event-rows')
      await execute(dropped, DROP_EVENT_ROWS[dropped.kind])
      const without = await start('event rows dropped', dropped)
      const variants: [Variant, Variant] = [
        { label: 'create with its event', server: withEvents, runs: [] },
        { label: 'create, event row dropped', server: without, runs: [] },
      ]
      const body = JSON.stringify({ name: 'Cost', categoryId: 1 })
      await interleaved(variants, key, [{ method: 'POST', path: '/v1/pets', body }], settings)
      console.log(report(`creates on ${dropped.kind}, ${settings.connections} connections`, variants))
    }
    if (scenarios.has('feed') && options.before) {
      const beforeScript = shippedCommand(resolve(options.before)).script
      const after = await serve('feed-after')
      const before = await serve('feed-before', beforeScript)
      for (const store of [after, before]) await fillEvents(store, eventCount)
      const variants: [Variant, Variant] = [
        { label: 'this build', server: await start('feed (this build)', after), runs: [] },
        { label: 'the --before build', server: await start('feed (before)', before, beforeScript), runs: [] },
      ]
      for (const variant of variants) await waitForEvent(variant.server, key, eventCount)
      const positions = Array.from({ length: 1000 }, () => Math.floor(Math.random() * (eventCount - limit)))
      const requests = positions.map((position) => ({
        method: 'GET' as const,
        path: `/v1/events?after=${position}&limit=${limit}`,
      }))
      await interleaved(variants, key, requests, settings)
      console.log(
        report(
          `feed pages of ${limit} over ${eventCount} events on ${after.kind}, ${settings.connections} connections`,
          variants,
        ),
      )
    }
  } finally {
    for (const server of servers) await server.stop()
    for (const store of stores)
      await store.drop().catch((error: unknown) => log(`could not drop a store: ${String(error)}`))
    removeTempDirectory(directory)
  }
}

main().catch((error: unknown) => {
  log(`bench:event-cost: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
