// npm run bench:flood: does a flood of the public routes (documents, /docs, /metrics, the index) slow the
// API down? Authenticated `GET /v1/pets` is loaded as in npm run bench (50 connections), first alone ("at
// rest": no flood), then while 20 anonymous connections flood one public route, route after route; the p50
// under flood must stay within 3 × the p50 at rest. (A flood of anything, even 429s, takes its share of the
// event loop: 20 extra connections beside 50 cost about 1.4 × if their requests are as cheap as the API's.) Run twice:
// with the default anonymous quota (the flood is soon answered 429, as it
// would be in production), and with the quota lifted, which measures the prepared documents alone.
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { median, runLoad, type Measurement } from './load.js'
import { describeMachine, describeRevision } from './machine.js'
import {
  ROOT,
  installCleanup,
  makeTempDirectory,
  removeTempDirectory,
  startService,
  startWatchdog,
  type RunningServer,
} from './processes.js'
import { markdownTable } from './report.js'
import { createStore, type BenchStore } from './seed.js'

const ROUTES = ['/docs/yaml', '/docs/json', '/v1/openapi.json', '/metrics', '/docs', '/']
const TARGET_RATIO = 3

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    flooders: { type: 'string', default: '20' },
    probes: { type: 'string', default: '50' },
    pets: { type: 'string', default: '10000' },
    routes: { type: 'string', default: ROUTES.join(',') },
    dir: { type: 'string' },
    'time-limit': { type: 'string', default: '15' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
})

const HELP = `Usage: npm run bench:flood -- [options]
  --duration S     seconds per measurement (5)
  --rounds N       rounds; each figure is the median of them (3)
  --flooders N     anonymous connections flooding the public route (20)
  --probes N       authenticated connections loading GET /v1/pets (50)
  --pets N         pets seeded (10000)
  --routes LIST    public routes to flood (${ROUTES.join(',')})
  --dir DIR        where the temporary database goes
  --time-limit MIN abort, cleaning up, after this many minutes (15)`

const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

function positive(name: string, value: string | undefined): number {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new Error(`--${name} must be a positive integer, not ${JSON.stringify(value)}`)
  return parsed
}

interface Variant {
  label: string
  env: Record<string, string>
}

const VARIANTS: Variant[] = [
  { label: 'default anonymous quota (60 per 60 s)', env: {} },
  { label: 'anonymous quota lifted (documents served every time)', env: { RATE_LIMIT_ANONYMOUS: '1000000000' } },
]

interface Row {
  variant: string
  route: string
  rest: number[]
  flooded: number[]
  floodRate: number[]
  floodStatuses: Record<string, number>
}

async function main(): Promise<void> {
  if (options.help) {
    console.log(HELP)
    return
  }
  const duration = positive('duration', options.duration)
  const rounds = positive('rounds', options.rounds)
  const flooders = positive('flooders', options.flooders)
  const probes = positive('probes', options.probes)
  const pets = positive('pets', options.pets)
  const routes = options.routes.split(',').map((route) => route.trim())
  installCleanup()
  startWatchdog(positive('time-limit', options['time-limit']))
  log(`bench:flood: ${describeMachine()}`)
  log(`bench:flood: ${VARIANTS.length} variants × ${routes.length} routes × ${rounds} rounds × 2 × ${duration} s`)

  const directory = makeTempDirectory(options.dir)
  const apiKey = `bench_${randomBytes(16).toString('hex')}`
  let store: BenchStore | undefined
  let service: RunningServer | undefined
  const rows: Row[] = []
  try {
    store = await createStore({ directory, name: 'flood', postgresUrl: undefined })
    await store.seedTo(pets)
    for (const variant of VARIANTS) {
      for (const route of routes)
        rows.push({ variant: variant.label, route, rest: [], flooded: [], floodRate: [], floodStatuses: {} })
    }
    for (let round = 1; round <= rounds; round++) {
      for (const variant of VARIANTS) {
        // A fresh process per variant and round: the flood of the last one must not have spent this one's quota.
        service = await startService({
          name: 'service',
          databaseUrl: store.databaseUrl,
          apiKey,
          logPath: '/dev/null',
          env: variant.env,
        })
        const baseUrl = service.baseUrl
        const probe = () =>
          runLoad({
            url: baseUrl,
            connections: probes,
            durationSeconds: duration,
            headers: { authorization: `Bearer ${apiKey}` },
            requests: [{ method: 'GET', path: '/v1/pets' }],
          })
        // Warm-up: the first requests compile the hot paths and prepare each document.
        await probe()
        for (const route of routes) await (await fetch(`${baseUrl}${route}`)).arrayBuffer()
        for (const row of rows.filter((candidate) => candidate.variant === variant.label)) {
          await sleep(300)
          const rest = await probe()
          const [flooded, flood] = await Promise.all([
            probe(),
            runLoad({
              url: baseUrl,
              connections: flooders,
              durationSeconds: duration,
              headers: {},
              requests: [{ method: 'GET', path: row.route }],
            }),
          ])
          check(rest, 'at rest')
          check(flooded, `under a flood of ${row.route}`)
          row.rest.push(rest.p50)
          row.flooded.push(flooded.p50)
          row.floodRate.push(flood.requestsPerSecond)
          for (const [status, count] of Object.entries(flood.unexpected))
            row.floodStatuses[status] = (row.floodStatuses[status] ?? 0) + count
          log(
            `round ${round}/${rounds} ${variant.label} ${row.route}: p50 ${rest.p50.toFixed(2)} ms at rest, ` +
              `${flooded.p50.toFixed(2)} ms flooded (${(flooded.p50 / rest.p50).toFixed(1)} ×); flood ` +
              `${Math.round(flood.requestsPerSecond)} req/s ${JSON.stringify(flood.unexpected)}`,
          )
        }
        await service.stop()
        service = undefined
      }
    }
  } finally {
    await service?.stop()
    await store?.drop().catch((error: unknown) => log(`bench:flood: could not drop the store: ${String(error)}`))
    removeTempDirectory(directory)
  }

  console.log(
    `\n${describeMachine().replace(/, load average.*/, '')}; SQLite, ${pets.toLocaleString('en-US')} pets; ` +
      `service at ${describeRevision(ROOT)}`,
  )
  console.log(
    `GET /v1/pets loaded on ${probes} authenticated connections; ${flooders} anonymous connections flood the ` +
      `route; ${rounds} rounds × ${duration} s (median; at rest: the median of all the variant's measurements ` +
      `without flood)\n`,
  )
  // "At rest" does not depend on the route: the p50 of every measurement at rest of the variant is the reference.
  const restOf = (variant: string) => median(rows.filter((row) => row.variant === variant).flatMap((row) => row.rest))
  const table = rows.map((row) => {
    const rest = restOf(row.variant)
    const flooded = median(row.flooded)
    const ratio = flooded / rest
    const refused = row.floodStatuses['429'] ?? 0
    return [
      row.variant,
      row.route,
      rest.toFixed(2),
      flooded.toFixed(2),
      `${ratio.toFixed(2)} ×`,
      ratio <= TARGET_RATIO ? 'yes' : 'NO',
      String(Math.round(median(row.floodRate))),
      refused > 0 ? `${refused} × 429` : '',
    ]
  })
  console.log(
    markdownTable(
      [
        'quota',
        'flooded route',
        'p50 at rest (ms)',
        'p50 flooded (ms)',
        'ratio',
        `≤ ${TARGET_RATIO} ×`,
        'flood req/s',
        'flood refused',
      ],
      table,
    ),
  )
}

/** The probe must be answered 200 throughout: a latency of refusals would be worthless. */
function check(measurement: Measurement, when: string): void {
  if (measurement.errors > 0 || Object.keys(measurement.unexpected).length > 0) {
    throw new Error(
      `GET /v1/pets ${when}: ${measurement.errors} errors, unexpected statuses ` +
        `${JSON.stringify(measurement.unexpected)}`,
    )
  }
}

main().catch((error: unknown) => {
  log(`bench:flood: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
