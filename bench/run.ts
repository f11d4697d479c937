// npm run bench: the service against the limit L (a bare node:http server answering the same 20-pet body),
// measured in the same run, in interleaved rounds, on loopback. See docs/benchmarks.md.
import { randomBytes } from 'node:crypto'
import { readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { compileBenchServers } from './compile.js'
import { summariseProfile } from './cpu-profile.js'
import { processCpuSeconds } from './cpu-time.js'
import { mintWindowedCursors } from './deep-cursor.js'
import { runLoad } from './load.js'
import { frameworkTargetsReport } from './framework-targets.js'
import { describeMachine, describeRevision } from './machine.js'
import { nginxAvailable, startNginx } from './nginx.js'
import {
  CLI,
  ROOT,
  SHIPPED,
  installCleanup,
  makeTempDirectory,
  removeTempDirectory,
  startBenchServer,
  startService,
  startWatchdog,
  type RunningServer,
} from './processes.js'
import {
  resultsTable,
  summarise,
  targetsReport,
  type IdleRss,
  type RoundResult,
  type ScenarioSummary,
} from './report.js'
import { fileBackedMiB, heapBreakdown, samplePeakRss, rssMiB } from './rss.js'
import { shippedCommand } from './shipped-command.js'
import { DEEP_OFFSET, SCENARIOS, type Scenario, type ScenarioContext, type TargetName } from './scenarios.js'
import { createStore, type BenchStore } from './seed.js'
import { verifyScenario } from './verify.js'
import { loadConfig } from '../src/config.js'

const HELP = `Usage: npm run bench -- [options]
  --duration S       seconds per measured round (10)
  --rounds N         rounds; each row is the median of them (3)
  --connections N    autocannon connections (50)
  --warmup S         seconds of warm-up per scenario, before round 1 (3)
  --pets N           pets seeded for the read scenarios (1000000)
  --scenarios IDS    comma-separated subset of: ${SCENARIOS.map((scenario) => scenario.id).join(', ')} 
                     (L and F always run)
  --postgres URL     run the service on PostgreSQL (a fresh schema on that server): the PostgreSQL reference and
                     two instances behind nginx instead of the SQLite references
  --pool-size N      DATABASE_POOL_SIZE of the services, and the PostgreSQL reference's pool (the service's default)
  --pg-options TEXT  more settings for the services' PostgreSQL sessions, e.g. '-c commit_delay=100'
  --before DIR       a built checkout of an earlier revision, started as its own npm start starts it (its
                     dist/bundle/cli.js with its node flags): adds create-before, its durable create on a
                     fresh store, and list-before, get-before and get-same-before, its reads of the seeded
                     store (if it knows the store's migrations), in the same rounds (e.g. git archive REV |
                     tar -x -C DIR, link node_modules, npm run build there)
  --log-file PATH    append the service's logs to PATH instead of /dev/null (logging is on either way)
  --cpu-prof DIR     profile the service (node --cpu-prof) and print its top self-time functions
  --json PATH        also write all figures, every round included, as JSON
  --dir DIR          where the temporary databases go (default: the OS temporary directory)
  --time-limit MIN   abort, cleaning up, after this many minutes (15)`

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    pets: { type: 'string', default: '1000000' },
    scenarios: { type: 'string' },
    postgres: { type: 'string' },
    'pool-size': { type: 'string' },
    'pg-options': { type: 'string' },
    before: { type: 'string' },
    'log-file': { type: 'string' },
    'cpu-prof': { type: 'string' },
    json: { type: 'string' },
    dir: { type: 'string' },
    'time-limit': { type: 'string', default: '15' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
})

function positive(name: string, value: string | undefined): number {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 1)
    throw new Error(`--${name} must be a positive integer, not ${JSON.stringify(value)}`)
  return parsed
}

const log = (line: string) => process.stderr.write(`${line}\n`)

/** `url` with more PostgreSQL session settings in its `options` (which already selects the schema). */
function withSessionOptions(url: string, extra: string | undefined): string {
  if (!extra) return url
  const withOptions = new URL(url)
  withOptions.searchParams.set('options', `${withOptions.searchParams.get('options') ?? ''} ${extra}`.trim())
  return withOptions.toString()
}
const IDLE_SETTLE_SECONDS = 30
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

/**
 * A source newer than both its output and the last build's bookkeeping (tsc skips rewriting an output that
 * would not change, but always records the new source version) means dist/ is stale or the build failed.
 */
function checkBuild(): void {
  const stale: string[] = []
  let lastBuild = 0
  try {
    lastBuild = statSync(join(ROOT, 'dist', '.tsbuildinfo')).mtimeMs
  } catch {
    lastBuild = 0
  }
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) {
        const output = join(ROOT, 'dist', relative(join(ROOT, 'src'), path)).replace(/\.ts$/, '.js')
        let built = 0
        try {
          built = statSync(output).mtimeMs
        } catch {
          built = 0
        }
        if (Math.max(built, lastBuild) < statSync(path).mtimeMs) stale.push(relative(ROOT, path))
      }
    }
  }
  statSync(CLI)
  walk(join(ROOT, 'src'))
  if (stale.length > 0)
    log(
      `bench: warning: dist/ is older than ${stale.join(', ')}; npm run bench builds first, tsx bench/run.ts does not`,
    )
}

/** The servers that read the seeded pets: the store is filled only when one of them runs. */
const READING_SEEDED_PETS: TargetName[] = ['service', 'serviceBefore', 'referenceList', 'minimal']

async function main(): Promise<void> {
  if (options.help) {
    console.log(HELP)
    return
  }
  const settings = {
    duration: positive('duration', options.duration),
    rounds: positive('rounds', options.rounds),
    connections: positive('connections', options.connections),
    warmup: Number(options.warmup),
    pets: positive('pets', options.pets),
  }
  if (settings.pets < 100) throw new Error('--pets must be at least 100')
  const timeLimit = positive('time-limit', options['time-limit'])
  installCleanup()
  startWatchdog(timeLimit)
  const started = performance.now()
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`
  checkBuild()

  const wanted = options.scenarios?.split(',').map((id) => id.trim())
  const unknown = wanted?.filter((id) => !SCENARIOS.some((scenario) => scenario.id === id)) ?? []
  if (unknown.length > 0)
    throw new Error(
      `unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((scenario) => scenario.id).join(', ')}`,
    )
  const storeKind = options.postgres ? 'postgres' : 'sqlite'
  const withNginx = nginxAvailable()
  if (!withNginx && options.postgres) log('bench: warning: nginx is not installed; the two-instance rows are left out')
  const scenarios = SCENARIOS.filter(
    (scenario) => ['baseline', 'framework'].includes(scenario.id) || !wanted || wanted.includes(scenario.id),
  )
    .filter(
      (scenario) =>
        (!scenario.store || scenario.store === storeKind) && (withNginx || !scenario.target.startsWith('nginx')),
    )
    .filter(
      (scenario) => options.before !== undefined || !['createServiceBefore', 'serviceBefore'].includes(scenario.target),
    )
  // The service's default unless given, validated as the service validates it.
  const poolSize = loadConfig({ DATABASE_POOL_SIZE: options['pool-size'] }).databasePoolSize
  const serviceEnv: Record<string, string> = options['pool-size'] ? { DATABASE_POOL_SIZE: String(poolSize) } : {}
  // The earlier build as it ships: its script with its own node flags and environment.
  const before = options.before === undefined ? undefined : shippedCommand(resolve(options.before))
  const beforeCli = before?.script
  const needed = new Set<TargetName>(scenarios.map((scenario) => scenario.target))
  const planned = scenarios.length * (settings.warmup + 1 + settings.rounds * (settings.duration + 1.5))
  log(`bench: ${describeMachine()}`)
  log(
    `bench: ${scenarios.length} scenarios × ${settings.rounds} rounds × ${settings.duration} s, ` +
      `${settings.connections} connections, ${settings.pets.toLocaleString('en-US')} pets; about ` +
      `${Math.ceil(planned / 60)} min of load`,
  )

  const directory = makeTempDirectory(options.dir)
  const logPath = options['log-file'] ?? '/dev/null'
  const apiKey = `bench_${randomBytes(16).toString('hex')}`
  const servers = new Map<TargetName, RunningServer>()
  /** Processes no scenario loads directly: the second instance behind nginx. */
  const helpers: RunningServer[] = []
  const stores: BenchStore[] = []
  try {
    const store = await createStore({ directory, name: 'pets', postgresUrl: options.postgres })
    stores.push(store)
    if (READING_SEEDED_PETS.some((target) => needed.has(target))) {
      const { milliseconds } = await store.seedTo(settings.pets)
      log(
        `bench: seeded ${settings.pets.toLocaleString('en-US')} pets into ${store.kind} in ` +
          `${(milliseconds / 1000).toFixed(1)} s`,
      )
    }
    const createStoreFor = async (name: string, postgresUrl: string | undefined, cli?: string) => {
      const fresh = await createStore({ directory, name, postgresUrl, ...(cli ? { cli } : {}) })
      stores.push(fresh)
      return fresh
    }
    const createTarget = needed.has('createService') ? await createStoreFor('create', options.postgres) : undefined
    const maintenanceTarget = needed.has('maintenanceService')
      ? await createStoreFor('maintenance', options.postgres)
      : undefined
    if (maintenanceTarget) {
      const { milliseconds } = await maintenanceTarget.seedTo(settings.pets)
      log(
        `bench: seeded ${settings.pets.toLocaleString('en-US')} pets into the maintenance ` +
          `${maintenanceTarget.kind} store in ${(milliseconds / 1000).toFixed(1)} s`,
      )
    }
    // The earlier build migrates its own store: it would refuse one that knows migrations it does not.
    const createBeforeTarget = beforeCli
      ? await createStoreFor('create-before', options.postgres, beforeCli)
      : undefined
    const referenceCreateTarget = needed.has('referenceCreate')
      ? await createStoreFor('reference-create', undefined)
      : undefined

    const compiled = compileBenchServers()
    const baselineScript = join(compiled, 'baseline-server.js')
    const referenceScript = join(compiled, 'reference-server.js')
    const serviceUrl = withSessionOptions(store.databaseUrl, options['pg-options'])
    const benchEnv = { BENCH_API_KEY: apiKey }
    const starting: Array<Promise<void>> = []
    const start = (target: TargetName, launch: () => Promise<RunningServer>) => {
      if (needed.has(target)) starting.push(launch().then((server) => void servers.set(target, server)))
    }
    start('baseline', () => startBenchServer('baseline', baselineScript, benchEnv))
    start('framework', () => startBenchServer('framework', join(compiled, 'framework-server.js'), benchEnv))
    start('frameworkHeaders', () =>
      startBenchServer('framework with headers', join(compiled, 'framework-server.js'), {
        ...benchEnv,
        BENCH_SERVICE_HEADERS: '1',
      }),
    )
    // The service always starts: it creates the cursor secret the deep scenario needs, and its idle RSS is reported.
    needed.add('service')
    start('service', () =>
      startService({
        name: 'service',
        databaseUrl: serviceUrl,
        apiKey,
        logPath,
        env: serviceEnv,
        ...(options['cpu-prof'] ? { nodeFlags: ['--cpu-prof', '--cpu-prof-dir', options['cpu-prof']] } : {}),
      }),
    )
    // The second instance behind nginx: the same store, the same settings.
    if (needed.has('nginxTwo')) {
      starting.push(
        startService({ name: 'second instance', databaseUrl: serviceUrl, apiKey, logPath, env: serviceEnv }).then(
          (server) => void helpers.push(server),
        ),
      )
    }
    if (createTarget) {
      start('createService', () =>
        startService({
          name: 'create service',
          databaseUrl: withSessionOptions(createTarget.databaseUrl, options['pg-options']),
          apiKey,
          logPath,
          env: serviceEnv,
        }),
      )
    }
    start('referencePostgres', () =>
      startBenchServer('reference postgres', join(compiled, 'reference-postgres-server.js'), {
        ...benchEnv,
        BENCH_DATABASE_URL: store.databaseUrl,
        BENCH_POOL_SIZE: String(poolSize),
      }),
    )
    // M runs with the service's node flags and environment, so that only what the two do differs.
    start('minimal', () =>
      startBenchServer(
        'minimal server',
        join(compiled, 'minimal-server.js'),
        {
          ...benchEnv,
          ...SHIPPED.env,
          BENCH_LOG_PATH: logPath,
          ...(store.sqlitePath
            ? { BENCH_SQLITE_PATH: store.sqlitePath }
            : { BENCH_DATABASE_URL: serviceUrl, BENCH_POOL_SIZE: String(poolSize) }),
        },
        undefined,
        SHIPPED.nodeFlags,
      ),
    )
    if (maintenanceTarget) {
      start('maintenanceService', () =>
        startService({
          name: 'maintenance service',
          databaseUrl: withSessionOptions(maintenanceTarget.databaseUrl, options['pg-options']),
          apiKey,
          logPath,
          env: serviceEnv,
        }),
      )
    }
    if (createBeforeTarget && before) {
      start('createServiceBefore', () =>
        startService({
          name: 'create service (before)',
          databaseUrl: createBeforeTarget.databaseUrl,
          apiKey,
          logPath,
          command: before,
        }),
      )
    }
    // The earlier build's reads, on the same seeded store: both services measured in the same rounds.
    if (before) {
      start('serviceBefore', () =>
        startService({
          name: 'service (before)',
          databaseUrl: serviceUrl,
          apiKey,
          logPath,
          env: serviceEnv,
          command: before,
        }),
      )
    }
    if (store.sqlitePath)
      start('referenceList', () =>
        startBenchServer('reference list', referenceScript, { ...benchEnv, BENCH_SQLITE_PATH: store.sqlitePath ?? '' }),
      )
    if (referenceCreateTarget?.sqlitePath) {
      start('referenceCreate', () =>
        startBenchServer('reference create', referenceScript, {
          ...benchEnv,
          BENCH_SQLITE_PATH: referenceCreateTarget.sqlitePath ?? '',
        }),
      )
    }
    // Settled, not all: on a failure every server that did start is known, so the clean-up stops it.
    const failed = (await Promise.allSettled(starting)).find((outcome) => outcome.status === 'rejected')
    if (failed) throw failed.reason
    // nginx in front of the service alone (named twice, as the template has two upstreams), and of both instances.
    const upstream = (running: RunningServer | undefined) => (running ? new URL(running.baseUrl).host : '')
    const first = upstream(servers.get('service'))
    // Their rows' RSS column is the first instance's: nginx's own is not the service's.
    const measuring = (running: Promise<RunningServer>) =>
      running.then((nginx) => ({ ...nginx, pid: servers.get('service')?.pid ?? nginx.pid }))
    start('nginxOne', () => measuring(startNginx('nginx (1 instance)', [first, first], directory)))
    start('nginxTwo', () => measuring(startNginx('nginx (2 instances)', [first, upstream(helpers[0])], directory)))
    const nginxFailed = (await Promise.allSettled(starting)).find((outcome) => outcome.status === 'rejected')
    if (nginxFailed) throw nginxFailed.reason
    const server = (target: TargetName): RunningServer => {
      const found = servers.get(target)
      if (!found) throw new Error(`${target} is not running`)
      return found
    }
    log(`bench: servers up after ${elapsed()}`)

    const context: ScenarioContext = {
      pets: settings.pets,
      connections: settings.connections,
      ...(await mintWindowedCursors(store, settings.pets, DEEP_OFFSET)),
    }
    for (const scenario of scenarios) await verifyScenario(scenario, server(scenario.target).baseUrl, apiKey, context)

    await sleep(2000)
    const idleAfterStart = rssMiB(server('service').pid)
    const heapAfterStart = await heapBreakdown(server('service').baseUrl)
    // V8 gives memory back only once it sees the process idle (its memory reducer acts after some seconds
    // without allocation): an idle service is measured again after half a minute of idleness, here and after the load.
    log(`bench: ${IDLE_SETTLE_SECONDS} s idle for the memory readings`)
    await sleep(IDLE_SETTLE_SECONDS * 1000)
    const idleAfterStartSettled = rssMiB(server('service').pid)
    const fileBackedAfterStart = fileBackedMiB(server('service').pid)
    const headers = { authorization: `Bearer ${apiKey}` }
    const load = (scenario: Scenario, seconds: number) =>
      runLoad({
        url: server(scenario.target).baseUrl,
        connections: settings.connections,
        durationSeconds: seconds,
        headers,
        requests: scenario.requests(context),
      })

    if (settings.warmup > 0) {
      for (const scenario of scenarios) await load(scenario, settings.warmup)
      log(`bench: warmed up after ${elapsed()}`)
    }
    const rounds = new Map<string, RoundResult[]>(scenarios.map((scenario) => [scenario.id, []]))
    for (let round = 1; round <= settings.rounds; round++) {
      // Interleaved (every scenario once per round) so that a slow minute of a busy machine hurts all rows alike.
      for (const scenario of scenarios) {
        await sleep(500)
        const { pid } = server(scenario.target)
        const sampler = samplePeakRss(pid)
        const cpuBefore = processCpuSeconds(pid)
        const measurement = await load(scenario, settings.duration)
        const cpuMicrosPerRequest = ((processCpuSeconds(pid) - cpuBefore) * 1e6) / measurement.responses
        const result = { ...measurement, peakRssMiB: sampler.stop(), cpuMicrosPerRequest }
        rounds.get(scenario.id)?.push(result)
        log(
          `round ${round}/${settings.rounds} ${scenario.label}: ${Math.round(result.requestsPerSecond)} req/s, ` +
            `p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
            `RSS ${result.peakRssMiB.toFixed(0)} MiB, CPU ${result.cpuMicrosPerRequest.toFixed(1)} µs/req` +
            (Object.keys(result.unexpected).length + result.errors > 0
              ? `, UNEXPECTED ${JSON.stringify(result.unexpected)} errors ${result.errors}`
              : ''),
        )
      }
    }
    await sleep(3000)
    const afterLoadMiB = rssMiB(server('service').pid)
    const heapAfterLoad = await heapBreakdown(server('service').baseUrl)
    log(`bench: ${IDLE_SETTLE_SECONDS} s idle for the last memory reading`)
    await sleep(IDLE_SETTLE_SECONDS * 1000)
    const idle: IdleRss = {
      afterStartMiB: idleAfterStart,
      afterStartSettledMiB: idleAfterStartSettled,
      afterLoadMiB,
      afterLoadSettledMiB: rssMiB(server('service').pid),
    }
    const heapSettled = await heapBreakdown(server('service').baseUrl)

    const summaries: ScenarioSummary[] = scenarios.map((scenario) =>
      summarise(scenario.id, scenario.label, rounds.get(scenario.id) ?? []),
    )
    const limit = summaries.find((summary) => summary.id === 'baseline')?.requestsPerSecond ?? NaN
    const framework = summaries.find((summary) => summary.id === 'framework')?.requestsPerSecond ?? NaN
    console.log(
      `\n${describeMachine().replace(/, load average.*/, '')}; ${store.kind}, ` +
        `${settings.pets.toLocaleString('en-US')} pets; service at ${describeRevision(ROOT)}`,
    )
    console.log(
      `autocannon: ${settings.connections} connections, ${settings.rounds} rounds × ${settings.duration} s ` +
        `(median), ${settings.warmup} s warm-up\n`,
    )
    console.log(resultsTable(summaries, limit, framework))
    console.log(
      `\nservice idle after start: RSS ${idle.afterStartMiB.toFixed(0)} MiB; ${heapAfterStart}; ` +
        `${IDLE_SETTLE_SECONDS} s later: RSS ${idle.afterStartSettledMiB.toFixed(0)} MiB, of which file-backed ` +
        `${fileBackedAfterStart.toFixed(0)} MiB (the node executable's pages: see bench/rss.ts)`,
    )
    console.log(`service idle after the load: RSS ${idle.afterLoadMiB.toFixed(0)} MiB; ${heapAfterLoad}`)
    console.log(
      `service idle ${IDLE_SETTLE_SECONDS} s later: RSS ${idle.afterLoadSettledMiB.toFixed(0)} MiB; ${heapSettled}\n`,
    )
    console.log(targetsReport(summaries, limit, idle, store.kind))
    console.log(`\nAgainst the framework:\n${frameworkTargetsReport(summaries, idle, store.kind)}`)
    const failures = summaries.filter((summary) => summary.errors > 0 || Object.keys(summary.unexpected).length > 0)
    if (failures.length > 0)
      console.log(`\nWARNING: non-2xx answers or errors in: ${failures.map((summary) => summary.label).join('; ')}`)
    if (options.json) {
      writeFileSync(
        options.json,
        `${JSON.stringify(
          {
            machine: describeMachine(),
            settings,
            store: store.kind,
            limit,
            idle,
            heapAfterStart,
            heapAfterLoad,
            heapSettled,
            summaries,
          },
          null,
          2,
        )}\n`,
      )
    }
    for (const running of servers.values()) await running.stop()
    servers.clear()
    if (options['cpu-prof']) console.log(`\n${summariseProfile(options['cpu-prof'])}`)
    console.log(`\ntotal time ${elapsed()}`)
  } finally {
    await Promise.all([...servers.values(), ...helpers].map((running) => running.stop()))
    for (const store of stores)
      await store.drop().catch((error: unknown) => log(`bench: could not drop a store: ${String(error)}`))
    removeTempDirectory(directory)
  }
}

main().catch((error: unknown) => {
  log(`bench: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
