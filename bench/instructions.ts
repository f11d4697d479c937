// npm run bench:instructions: CPU instructions per request, counted by valgrind's callgrind in each server
// process while a steady stream of requests runs. Unlike requests per second, a count barely moves when other
// work shares the machine, so two builds (or the service and F) can be compared on a busy host.
//   tsx bench/instructions.ts [--postgres URL] [--requests N] [--warmup N] [--concurrency N] [--scenarios IDS]
//     [--before DIR (a built checkout: its service is counted too, after this one)] [--annotate]
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compileBenchServers } from './compile.js'
import { CREATE_BODY } from './pets-data.js'
import {
  installCleanup,
  makeTempDirectory,
  removeTempDirectory,
  startBenchServer,
  startService,
  type RunningServer,
} from './processes.js'
import { markdownTable } from './report.js'
import { createStore } from './seed.js'
import { shippedCommand, type ShippedCommand } from './shipped-command.js'

const { values: options } = parseArgs({
  options: {
    postgres: { type: 'string' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '10' },
    scenarios: { type: 'string', default: 'baseline,framework,minimal-get,list,get,create' },
    before: { type: 'string' },
    annotate: { type: 'boolean', default: false },
  },
  strict: true,
})
const PETS = 10_000
const requests = Number(options.requests)
const warmup = Number(options.warmup)
const concurrency = Number(options.concurrency)
const wanted = (options.scenarios ?? '').split(',')
const log = (line: string) => process.stderr.write(`${line}\n`)
const directory = makeTempDirectory()

interface Target {
  id: string
  label: string
  server: 'baseline' | 'framework' | 'minimal' | 'service'
  request: () => { path: string; init?: RequestInit }
}

const TARGETS: Target[] = [
  { id: 'baseline', label: 'L: bare node:http', server: 'baseline', request: () => ({ path: '/v1/pets' }) },
  { id: 'framework', label: 'F: plain Fastify', server: 'framework', request: () => ({ path: '/v1/pets' }) },
  {
    id: 'minimal-get',
    label: 'M: minimal server, get one (random id)',
    server: 'minimal',
    request: () => ({ path: `/v1/pets/${1 + Math.floor(Math.random() * PETS)}` }),
  },
  { id: 'list', label: 'service: list 20', server: 'service', request: () => ({ path: '/v1/pets' }) },
  {
    id: 'get',
    label: 'service: get one (random id)',
    server: 'service',
    request: () => ({ path: `/v1/pets/${1 + Math.floor(Math.random() * PETS)}` }),
  },
  {
    id: 'create',
    label: 'service: create (durable)',
    server: 'service',
    request: () => ({
      path: '/v1/pets',
      init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: CREATE_BODY },
    }),
  },
]

/** Sends requests from `concurrency` loops until `stop()` says so, calling `answered` for each answer. */
async function stream(
  baseUrl: string,
  apiKey: string,
  target: Target,
  stop: () => boolean,
  answered: () => void,
): Promise<void> {
  const loop = async () => {
    while (!stop()) {
      const { path, init } = target.request()
      const response = await fetch(`${baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${apiKey}`, ...(init?.headers as Record<string, string> | undefined) },
      })
      await response.arrayBuffer()
      if (response.status >= 300) throw new Error(`${target.id}: status ${response.status}`)
      answered()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
}

/** M (minimal-server.ts) reads the seeded store: SQLite's file, or PostgreSQL's database. */
const minimalStore = (store: { sqlitePath: string | undefined; databaseUrl: string }): Record<string, string> =>
  store.sqlitePath ? { BENCH_SQLITE_PATH: store.sqlitePath } : { BENCH_DATABASE_URL: store.databaseUrl }

const vgdbPrefix = (directory: string) => join(directory, 'vgdb')

/** callgrind_control, waited for without blocking: the requests must keep flowing for the server to see it. */
async function control(server: RunningServer, ...args: string[]): Promise<void> {
  // vgdb names its pipes after the HOST variable of the server's environment (the service's listening address).
  const env = { ...process.env }
  if (server.name === 'service') env.HOST = '127.0.0.1'
  else delete env.HOST
  const child = spawn('callgrind_control', [`--vgdb-prefix=${vgdbPrefix(directory)}`, ...args, String(server.pid)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  if (code !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${output}`)
}

/**
 * Counts the instructions of about `requests` requests while they keep flowing. The answers are counted from
 * the acknowledgement of "on" to that of "off": the delay of each acknowledgement is about the same, so the
 * requests it adds at one end and leaves out at the other cancel out.
 */
async function measure(server: RunningServer, apiKey: string, target: Target, directory: string) {
  let answered = 0
  let counting = false
  let done = false
  const flowing = stream(
    server.baseUrl,
    apiKey,
    target,
    () => done,
    () => {
      if (counting) answered++
    },
  )
  await control(server, '--zero')
  await control(server, '--instr=on')
  counting = true
  while (answered < requests) await new Promise((resolve) => setTimeout(resolve, 10))
  await control(server, '--instr=off')
  counting = false
  // Dumped while requests still flow: an idle server would not see the command.
  await control(server, '--dump')
  done = true
  await flowing
  const dumps = readdirSync(directory)
    .filter((name) => name.startsWith(`callgrind.out.${server.pid}.`))
    .sort()
  const last = dumps.at(-1)
  if (last === undefined) throw new Error(`no callgrind dump of ${server.pid} in ${readdirSync(directory).join(', ')}`)
  const dump = join(directory, last)
  const total = /^totals: (\d+)/m.exec(readFileSync(dump, 'utf8'))?.[1]
  if (total === undefined) throw new Error(`no total in ${dump}`)
  if (options.annotate) log(spawnSync('callgrind_annotate', [dump], { encoding: 'utf8' }).stdout.slice(0, 8000))
  return { counted: answered, perRequest: Number(total) / answered }
}

async function main(): Promise<void> {
  installCleanup()
  const apiKey = `bench_${randomBytes(16).toString('hex')}`
  const valgrind = [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--smc-check=all-non-file',
    `--callgrind-out-file=${join(directory, 'callgrind.out.%p')}`,
    `--vgdb-prefix=${vgdbPrefix(directory)}`,
  ]
  const rows: string[][] = []
  const runs: Array<{ kind: Target['server']; suffix: string; command?: ShippedCommand }> = [
    { kind: 'baseline', suffix: '' },
    { kind: 'framework', suffix: '' },
    { kind: 'minimal', suffix: '' },
    { kind: 'service', suffix: '' },
  ]
  // The same migrations are assumed: the earlier build serves this build's store.
  if (options.before) runs.push({ kind: 'service', suffix: ' (--before)', command: shippedCommand(options.before) })
  try {
    const store = await createStore({ directory, name: 'pets', postgresUrl: options.postgres })
    await store.seedTo(PETS)
    const compiled = compileBenchServers()
    for (const run of runs) {
      const { kind, suffix } = run
      const targets = TARGETS.filter((target) => target.server === kind && wanted.includes(target.id))
      if (targets.length === 0) continue
      log(`instructions: starting ${kind}${suffix} under valgrind`)
      const server =
        kind === 'service'
          ? await startService({
              name: kind,
              databaseUrl: store.databaseUrl,
              apiKey,
              logPath: '/dev/null',
              wrapper: valgrind,
              // Under valgrind the process runs some fifty times slower: PostgreSQL's statement time-out (the
              // client's read time-out follows it) would answer 503 before a slowed process reads the answer.
              ...(options.postgres ? { env: { DATABASE_STATEMENT_TIMEOUT_MS: '600000' } } : {}),
              ...(run.command ? { command: run.command } : {}),
            })
          : await startBenchServer(
              kind,
              join(compiled, `${kind}-server.js`),
              { BENCH_API_KEY: apiKey, ...(kind === 'minimal' ? minimalStore(store) : {}) },
              valgrind,
            )
      try {
        for (const target of targets) {
          let warmed = 0
          await stream(
            server.baseUrl,
            apiKey,
            target,
            () => warmed >= warmup,
            () => warmed++,
          )
          const { counted, perRequest } = await measure(server, apiKey, target, directory)
          const label = `${target.label}${suffix}`
          log(`instructions: ${label}: ${Math.round(perRequest).toLocaleString('en-US')} per request (${counted})`)
          rows.push([label, Math.round(perRequest).toLocaleString('en-US'), String(counted)])
        }
      } finally {
        await server.stop()
      }
    }
    await store.drop()
    console.log(markdownTable(['target', 'instructions per request', 'requests counted'], rows))
  } finally {
    removeTempDirectory(directory)
  }
}

main().catch((error: unknown) => {
  log(`instructions: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  process.exitCode = 1
})
