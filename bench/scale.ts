// npm run bench:scale: how list and get latency change as the store grows from 1,000 to 1,000,000 pets.
// One store and one service process per size, all running at once (an idle service costs nothing), measured
// in interleaved rounds (every size and scenario once per round; the median of the rounds is reported) so
// that a busy minute of the machine does not pass for an effect of the size. Each measurement is taken
// twice: under load (50 connections), and with a single connection, where nothing queues and the latency is
// the service's own cost per request: the figure the growth is judged on.
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { mintWindowedCursors } from './deep-cursor.js'
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
import { rssMiB, samplePeakRss, type PeakSampler } from './rss.js'
import { DEEP_OFFSET, SCENARIOS, type ScenarioContext } from './scenarios.js'
import { createStore, type BenchStore } from './seed.js'
import { verifyScenario } from './verify.js'

const { values: options } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000,1000000' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '3' },
    single: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    scenarios: { type: 'string', default: 'list,list-status,early,deep,get' },
    postgres: { type: 'string' },
    dir: { type: 'string' },
    'time-limit': { type: 'string', default: '15' },
  },
  strict: true,
})

const log = (line: string) => process.stderr.write(`${line}\n`)
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))
const numbers = (text: string) => text.split(',').map((part) => Number(part.trim()))
const thousands = (value: number) => value.toLocaleString('en-US')

interface Size {
  pets: number
  store: BenchStore
  seedingSeconds: number
  service?: RunningServer
  context?: ScenarioContext
  idleRssMiB?: number
  sampler?: PeakSampler
}

async function main(): Promise<void> {
  const sizes = numbers(options.sizes).sort((a, b) => a - b)
  if (sizes.some((size) => !Number.isSafeInteger(size) || size < 100))
    throw new Error('--sizes must be integers of at least 100')
  const [rounds = 3, duration = 3, single = 2, warmup = 2, connections = 50, timeLimit = 15] = numbers(
    [options.rounds, options.duration, options.single, options.warmup, options.connections, options['time-limit']].join(
      ',',
    ),
  )
  const scenarios = SCENARIOS.filter(
    (scenario) => scenario.target === 'service' && options.scenarios.split(',').includes(scenario.id),
  )
  installCleanup()
  startWatchdog(timeLimit)
  const started = performance.now()
  log(`bench:scale: ${describeMachine()}`)
  log(
    `bench:scale: ${sizes.length} sizes × ${scenarios.length} scenarios × ${rounds} rounds × (${duration} s at ` +
      `${connections} connections + ${single} s at 1)`,
  )

  const directory = makeTempDirectory(options.dir)
  const apiKey = `bench_${randomBytes(16).toString('hex')}`
  const headers = { authorization: `Bearer ${apiKey}` }
  const stores: Size[] = []
  try {
    for (const pets of sizes) {
      const store = await createStore({ directory, name: `pets-${pets}`, postgresUrl: options.postgres })
      const { milliseconds } = await store.seedTo(pets)
      stores.push({ pets, store, seedingSeconds: milliseconds / 1000 })
    }
    log(`bench:scale: seeded after ${((performance.now() - started) / 1000).toFixed(0)} s`)
    for (const size of stores) {
      size.service = await startService({
        name: `service (${size.pets} pets)`,
        databaseUrl: size.store.databaseUrl,
        apiKey,
        logPath: '/dev/null',
      })
      size.context = {
        pets: size.pets,
        connections,
        ...(await mintWindowedCursors(size.store, size.pets, DEEP_OFFSET)),
      }
      for (const scenario of scenarios) await verifyScenario(scenario, size.service.baseUrl, apiKey, size.context)
    }
    await sleep(1000)
    for (const size of stores) {
      if (!size.service) continue
      size.idleRssMiB = rssMiB(size.service.pid)
      size.sampler = samplePeakRss(size.service.pid)
    }
    const measure = (size: Size, scenarioIndex: number, seconds: number, connectionCount: number) => {
      const scenario = scenarios[scenarioIndex]
      if (!size.service || !size.context || !scenario) throw new Error('not started')
      return runLoad({
        url: size.service.baseUrl,
        connections: connectionCount,
        durationSeconds: seconds,
        headers,
        requests: scenario.requests(size.context),
      })
    }
    if (warmup > 0) {
      for (const size of stores)
        for (let index = 0; index < scenarios.length; index++) await measure(size, index, warmup, connections)
    }
    const results = new Map<string, { loaded: Measurement[]; single: Measurement[] }>()
    const key = (pets: number, index: number) => `${pets}/${index}`
    for (let round = 1; round <= rounds; round++) {
      for (const size of stores) {
        for (let index = 0; index < scenarios.length; index++) {
          await sleep(250)
          const loaded = await measure(size, index, duration, connections)
          const alone = await measure(size, index, single, 1)
          const entry = results.get(key(size.pets, index)) ?? { loaded: [], single: [] }
          entry.loaded.push(loaded)
          entry.single.push(alone)
          results.set(key(size.pets, index), entry)
          const bad = { ...loaded.unexpected, ...alone.unexpected }
          log(
            `round ${round}/${rounds} ${thousands(size.pets)} pets, ${scenarios[index]?.label}: ` +
              `${Math.round(loaded.requestsPerSecond)} req/s, p50 ${loaded.p50.toFixed(2)} ms, p99 ` +
              `${loaded.p99.toFixed(2)} ms; 1 connection p50 ${alone.p50.toFixed(3)} ms` +
              (Object.keys(bad).length > 0 || loaded.errors + alone.errors > 0
                ? `, UNEXPECTED ${JSON.stringify(bad)}`
                : ''),
          )
        }
      }
    }

    const smallest = sizes[0] ?? 0
    const largest = sizes.at(-1) ?? 0
    const singleP50 = (pets: number, index: number) =>
      median(results.get(key(pets, index))?.single.map((measurement) => measurement.p50) ?? [])
    console.log(
      `\n${describeMachine().replace(/, load average.*/, '')}; ${stores[0]?.store.kind}; service at ` +
        `${describeRevision(ROOT)}`,
    )
    console.log(
      `medians of ${rounds} interleaved rounds; each: ${duration} s at ${connections} connections, then ` +
        `${single} s at 1 connection (${warmup} s warm-up before round 1)\n`,
    )
    const rows: string[][] = []
    scenarios.forEach((scenario, index) => {
      for (const pets of sizes) {
        const entry = results.get(key(pets, index))
        const of = (list: Measurement[] | undefined, pick: (measurement: Measurement) => number) =>
          median(list?.map(pick) ?? [])
        rows.push([
          scenario.label,
          thousands(pets),
          thousands(Math.round(of(entry?.loaded, (m) => m.requestsPerSecond))),
          of(entry?.loaded, (m) => m.p50).toFixed(2),
          of(entry?.loaded, (m) => m.p99).toFixed(2),
          singleP50(pets, index).toFixed(3),
          of(entry?.single, (m) => m.p99).toFixed(3),
          (singleP50(pets, index) / singleP50(smallest, index)).toFixed(2),
        ])
      }
    })
    console.log(
      markdownTable(
        [
          'scenario',
          'pets',
          'req/s',
          'p50 ms',
          'p99 ms',
          '1 conn p50 ms',
          '1 conn p99 ms',
          `1 conn p50 ÷ at ${thousands(smallest)}`,
        ],
        rows,
      ),
    )
    const memory = stores.map((size) => [
      thousands(size.pets),
      size.seedingSeconds.toFixed(1),
      (size.idleRssMiB ?? NaN).toFixed(0),
      (size.sampler?.stop() ?? NaN).toFixed(0),
    ])
    console.log(`\n${markdownTable(['pets', 'seeding s', 'idle RSS MiB', 'peak RSS MiB'], memory)}\n`)
    // Logarithmic growth allows the cost to rise by log(largest) / log(smallest) at most (a B-tree's depth).
    const allowed = Math.log(largest) / Math.log(smallest)
    scenarios.forEach((scenario, index) => {
      const growth = singleP50(largest, index) / singleP50(smallest, index)
      console.log(
        `- ${scenario.label}: 1-connection p50 ×${growth.toFixed(2)} from ${thousands(smallest)} to ` +
          `${thousands(largest)} pets (logarithmic allows ×${allowed.toFixed(2)}) → ` +
          `${growth <= allowed ? 'met' : 'NOT met'}`,
      )
    })
    console.log(`\ntotal time ${((performance.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    await Promise.all(stores.map((size) => size.service?.stop()))
    for (const size of stores)
      await size.store.drop().catch((error: unknown) => log(`bench:scale: could not drop a store: ${String(error)}`))
    removeTempDirectory(directory)
  }
}

main().catch((error: unknown) => {
  log(`bench:scale: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
