// npm run bench:webhooks: durable creates at full speed, on a fresh store, without any webhook endpoint and with
// one endpoint subscribed to pet.created whose receiver (a healthy local server, bench/webhook-receiver.ts)
// answers at once. Reported: creates per second either way and their ratio (target: with ≥ 0.8 × without),
// deliveries per second while the creates run, how long the backlog took to drain after they stopped, and the
// time from each event's commit (its timestamp, taken in the committing transaction) to its first arrival;
// then the same latency at a steady rate of creates that the service is not saturated by (--rate).
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { compileBenchServers } from './compile.js'
import { summariseProfile } from './cpu-profile.js'
import { median, runLoad, type Measurement } from './load.js'
import { describeMachine, describeRevision } from './machine.js'
import { CREATE_BODY } from './pets-data.js'
import {
  ROOT,
  installCleanup,
  makeTempDirectory,
  removeTempDirectory,
  startBenchServer,
  startService,
  startWatchdog,
  type RunningServer,
} from './processes.js'
import { markdownTable } from './report.js'
import { createStore, type BenchStore } from './seed.js'

const HELP = `Usage: npm run bench:webhooks -- [options]
  --duration S       seconds of creates per measured round (10)
  --rounds N         rounds; each figure is the median of them (3)
  --connections N    autocannon connections (50)
  --warmup S         seconds of creates before each measurement (3)
  --postgres URL     run the service on PostgreSQL (a fresh schema per variant and round)
  --dir DIR          where the temporary databases go (a real disk: fsync on tmpfs is free)
  --drain-limit S    give up waiting for the backlog after this long (120)
  --rate N           creates per second of the steady measurement of commit-to-delivery latency (500)
  --env K=V[,K=V]    extra environment of the service (e.g. WEBHOOK_RETRY_SCHEDULE=none, to compare)
  --cpu-prof DIR     profile the service with the endpoint (node --cpu-prof) and print its top self-time functions
  --time-limit MIN   abort, cleaning up, after this many minutes (20)`

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    postgres: { type: 'string' },
    dir: { type: 'string' },
    'drain-limit': { type: 'string', default: '120' },
    'cpu-prof': { type: 'string' },
    env: { type: 'string' },
    rate: { type: 'string', default: '500' },
    'time-limit': { type: 'string', default: '20' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
})

const TARGET_RATIO = 0.8
const serviceEnv = Object.fromEntries(
  (options.env ?? '')
    .split(',')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=')
      if (equals <= 0) throw new Error(`--env takes NAME=VALUE pairs separated by commas, not ${pair}`)
      return [pair.slice(0, equals), pair.slice(equals + 1)]
    }),
)
const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

function positive(name: string, value: string | undefined): number {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new Error(`--${name} must be a positive integer, not ${JSON.stringify(value)}`)
  return parsed
}

interface ReceiverStats {
  received: number
  distinct: number
  latencies: number[]
}

async function receiverStats(receiver: RunningServer): Promise<ReceiverStats> {
  return (await fetch(`${receiver.baseUrl}/stats`)).json() as Promise<ReceiverStats>
}

/** Events in the store: each create writes one, and each must reach the receiver. */
async function countEvents(store: BenchStore): Promise<number> {
  if (store.sqlitePath) {
    const database = new SqliteDatabase(store.sqlitePath, { readonly: true })
    try {
      return database.prepare<[], { count: number }>('select count(*) as count from events').get()?.count ?? 0
    } finally {
      database.close()
    }
  }
  const client = new pg.Client({ connectionString: store.databaseUrl })
  await client.connect()
  try {
    return Number((await client.query<{ count: string }>('select count(*) as count from events')).rows[0]?.count ?? 0)
  } finally {
    await client.end()
  }
}

/**
 * PostgreSQL: writes every dirty page now, so that no measurement pays for a checkpoint that the writes before it
 * made due (its full-page images and fsyncs land at random in one variant's round or the other's).
 */
async function checkpoint(store: BenchStore): Promise<void> {
  if (store.sqlitePath) return
  const client = new pg.Client({ connectionString: store.databaseUrl })
  await client.connect()
  try {
    await client.query('checkpoint')
  } finally {
    await client.end()
  }
}

/**
 * Waits until the receiver has every event after the first `delivered` (those it had before its last reset);
 * returns the seconds it took, or undefined past the limit.
 */
async function drain(
  store: BenchStore,
  receiver: RunningServer,
  limitSeconds: number,
  delivered = 0,
): Promise<number | undefined> {
  const started = performance.now()
  const expected = (await countEvents(store)) - delivered
  while ((await receiverStats(receiver)).distinct < expected) {
    if (performance.now() - started > limitSeconds * 1000) return undefined
    await sleep(50)
  }
  return (performance.now() - started) / 1000
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN
}

interface Latency {
  p50: number
  p99: number
}

interface Round {
  creates: Measurement
  deliveriesPerSecond?: number
  drainSeconds?: number | undefined
  commitToDelivery?: Latency
  /** At the steady rate. */
  steady?: Latency
}

/** Creates at `rate` per second for `seconds`, spread over a few connections. */
function steadyCreates(
  url: string,
  headers: Record<string, string>,
  rate: number,
  seconds: number,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: 10,
        overallRate: rate,
        duration: seconds,
        headers,
        requests: [
          { method: 'POST', path: '/v1/pets', headers: { 'content-type': 'application/json' }, body: CREATE_BODY },
        ],
      },
      (error: unknown, result) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
    )
  })
}

interface Variant {
  label: string
  endpoint: boolean
  rounds: Round[]
}

async function main(): Promise<void> {
  if (options.help) {
    console.log(HELP)
    return
  }
  const duration = positive('duration', options.duration)
  const rounds = positive('rounds', options.rounds)
  const connections = positive('connections', options.connections)
  const warmup = Number(options.warmup)
  const drainLimit = positive('drain-limit', options['drain-limit'])
  const rate = positive('rate', options.rate)
  installCleanup()
  startWatchdog(positive('time-limit', options['time-limit']))
  log(`bench:webhooks: ${describeMachine()}`)

  const directory = makeTempDirectory(options.dir)
  const servers = compileBenchServers()
  const receiver = await startBenchServer('receiver', `${servers}/webhook-receiver.js`, {})
  const apiKey = `bench_${randomBytes(16).toString('hex')}`
  const headers = { authorization: `Bearer ${apiKey}` }
  const load = (url: string, seconds: number) =>
    runLoad({
      url,
      connections,
      durationSeconds: seconds,
      headers,
      requests: [
        { method: 'POST', path: '/v1/pets', headers: { 'content-type': 'application/json' }, body: CREATE_BODY },
      ],
    })
  const variants: Variant[] = [
    { label: 'create, no webhook endpoint', endpoint: false, rounds: [] },
    { label: 'create, one endpoint subscribed to pet.created', endpoint: true, rounds: [] },
  ]
  try {
    for (let round = 1; round <= rounds; round++) {
      // Alternating order, so that neither variant always runs on a machine warmed (or tired) by the other.
      for (const variant of round % 2 === 1 ? variants : [...variants].reverse()) {
        const store = await createStore({
          directory,
          name: `webhooks-${round}-${variant.endpoint ? 'with' : 'without'}`,
          postgresUrl: options.postgres,
        })
        const service = await startService({
          name: 'service',
          databaseUrl: store.databaseUrl,
          apiKey,
          logPath: '/dev/null',
          ...(options['cpu-prof'] ? { nodeFlags: ['--cpu-prof', '--cpu-prof-dir', options['cpu-prof']] } : {}),
          env: {
            WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
            WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
            ...serviceEnv,
          },
        })
        try {
          if (variant.endpoint) {
            const registered = await fetch(`${service.baseUrl}/v1/webhooks`, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ url: `${receiver.baseUrl}/hooks`, types: ['pet.created'] }),
            })
            if (registered.status !== 201)
              throw new Error(`registering the endpoint answered ${registered.status}: ${await registered.text()}`)
          }
          await fetch(`${receiver.baseUrl}/reset`, { method: 'POST' })
          if (warmup > 0) await load(service.baseUrl, warmup)
          if (variant.endpoint && (await drain(store, receiver, drainLimit)) === undefined)
            throw new Error('the warm-up backlog did not drain')
          const delivered = await countEvents(store)
          await fetch(`${receiver.baseUrl}/reset`, { method: 'POST' })
          await checkpoint(store)
          const creates = await load(service.baseUrl, duration)
          if (creates.errors > 0 || Object.keys(creates.unexpected).length > 0)
            throw new Error(`creates failed: ${creates.errors} errors, ${JSON.stringify(creates.unexpected)}`)
          const result: Round = { creates }
          if (variant.endpoint) {
            const during = await receiverStats(receiver)
            result.deliveriesPerSecond = during.received / duration
            result.drainSeconds = await drain(store, receiver, drainLimit, delivered)
            const { latencies } = await receiverStats(receiver)
            result.commitToDelivery = { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) }
            const before = await countEvents(store)
            await fetch(`${receiver.baseUrl}/reset`, { method: 'POST' })
            await steadyCreates(service.baseUrl, headers, rate, duration)
            await drain(store, receiver, drainLimit, before)
            const steady = (await receiverStats(receiver)).latencies
            result.steady = { p50: percentile(steady, 0.5), p99: percentile(steady, 0.99) }
          }
          variant.rounds.push(result)
          log(
            `round ${round}/${rounds} ${variant.label}: ${Math.round(creates.requestsPerSecond)} creates/s` +
              (result.deliveriesPerSecond === undefined
                ? ''
                : `, ${Math.round(result.deliveriesPerSecond)} deliveries/s during, drained in ` +
                  `${result.drainSeconds?.toFixed(1) ?? '>limit'} s, ` +
                  `commit→delivery p50 ${result.commitToDelivery?.p50} ms p99 ${result.commitToDelivery?.p99} ` +
                  `ms; at ${rate}/s p50 ${result.steady?.p50} ms p99 ${result.steady?.p99} ms`),
          )
        } finally {
          await service.stop()
          await store.drop()
        }
      }
    }
  } finally {
    await receiver.stop()
    removeTempDirectory(directory)
  }

  const [without, withEndpoint] = variants.map((variant) => ({
    ...variant,
    creates: median(variant.rounds.map((round) => round.creates.requestsPerSecond)),
    p50: median(variant.rounds.map((round) => round.creates.p50)),
    p99: median(variant.rounds.map((round) => round.creates.p99)),
  }))
  if (!without || !withEndpoint) return
  const ratio = withEndpoint.creates / without.creates
  const figure = (pick: (round: Round) => number | undefined, digits = 0) => {
    const values = withEndpoint.rounds.map(pick).filter((value): value is number => value !== undefined)
    return values.length === 0 ? '–' : median(values).toFixed(digits)
  }
  console.log(
    `\n${describeMachine().replace(/, load average.*/, '')}; ${options.postgres ? 'PostgreSQL' : 'SQLite'}; ` +
      `service at ${describeRevision(ROOT)}`,
  )
  console.log(
    `POST /v1/pets on ${connections} connections, ${rounds} rounds × ${duration} s, a fresh store per variant ` +
      `and round (median of rounds)\n`,
  )
  console.log(
    markdownTable(
      ['variant', 'creates/s', 'create p50 (ms)', 'create p99 (ms)'],
      [without, withEndpoint].map((variant) => [
        variant.label,
        String(Math.round(variant.creates)),
        variant.p50.toFixed(2),
        variant.p99.toFixed(2),
      ]),
    ),
  )
  console.log('')
  console.log(
    markdownTable(
      [
        'load',
        'deliveries/s during the creates',
        'backlog drained after (s)',
        'commit → delivery p50 (ms)',
        'commit → delivery p99 (ms)',
      ],
      [
        [
          'creates at full speed',
          figure((round) => round.deliveriesPerSecond),
          figure((round) => round.drainSeconds, 1),
          figure((round) => round.commitToDelivery?.p50),
          figure((round) => round.commitToDelivery?.p99),
        ],
        [`${rate} creates/s`, '–', '–', figure((round) => round.steady?.p50), figure((round) => round.steady?.p99)],
      ],
    ),
  )
  const roundRatios = withEndpoint.rounds.map((round, index) =>
    (round.creates.requestsPerSecond / (without.rounds[index]?.creates.requestsPerSecond ?? NaN)).toFixed(2),
  )
  console.log(
    `\ndurable create with one subscribed endpoint ≥ ${TARGET_RATIO} × without: ${ratio.toFixed(2)} × ` +
      `(rounds: ${roundRatios.join(', ')}) → ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}`,
  )
  if (options['cpu-prof']) console.log(`\n${summariseProfile(options['cpu-prof'])}`)
}

main().catch((error: unknown) => {
  log(`bench:webhooks: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
