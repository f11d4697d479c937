// npm run bench:webhooks-fair: a healthy endpoint beside twenty that accept and never answer (one of them answers
// 200 and drips its body without end: a success once its status arrives, its body read for a second), all
// subscribed to pet.created, under a steady rate of creates. Reported: the healthy endpoint's commit → receipt
// p50, p99 and max (its receiver, bench/webhook-receiver.ts, measures from the event's timestamp, taken in the
// committing transaction). With --before, the same against another build, the two interleaved round by round, so
// that both see the same (busy) machine.
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { compileBenchServers } from './compile.js'
import { describeMachine, describeRevision } from './machine.js'
import { CREATE_BODY } from './pets-data.js'
import {
  ROOT,
  installCleanup,
  makeTempDirectory,
  startBenchServer,
  startService,
  startWatchdog,
  type RunningServer,
} from './processes.js'
import { markdownTable } from './report.js'
import { createStore } from './seed.js'

const { values: options } = parseArgs({
  options: {
    rate: { type: 'string', default: '20' },
    duration: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '2' },
    hanging: { type: 'string', default: '20' },
    before: { type: 'string' },
    postgres: { type: 'string' },
    dir: { type: 'string' },
    'time-limit': { type: 'string', default: '20' },
  },
  strict: true,
})

const log = (line: string) => process.stderr.write(`${line}\n`)

/**
 * Receivers that accept and never answer; the last one answers 200 at once and drips its body a byte at a time
 * (each attempt then succeeds, after the second the deliverer reads its body for).
 */
async function startHanging(count: number): Promise<{ urls: string[]; close: () => void }> {
  const servers: Server[] = []
  for (let index = 0; index < count; index++) {
    const drips = index === count - 1
    const server = createServer((request, response) => {
      request.resume()
      if (!drips) return
      response.writeHead(200)
      const timer = setInterval(() => response.write('.'), 100)
      response.on('close', () => clearInterval(timer))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    servers.push(server)
  }
  return {
    urls: servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
    close: () => servers.forEach((server) => server.closeAllConnections() ?? server.close()),
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN
}

interface Figures {
  p50: number
  p99: number
  max: number
  received: number
  sent: number
}

async function round(script: string | undefined, receiver: RunningServer, hanging: string[]): Promise<Figures> {
  const apiKey = `bench_${randomBytes(16).toString('hex')}`
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
  const store = await createStore({
    directory: makeTempDirectory(options.dir),
    name: `fair-${Date.now()}`,
    postgresUrl: options.postgres,
  })
  const service = await startService({
    name: 'service',
    databaseUrl: store.databaseUrl,
    apiKey,
    logPath: '/dev/null',
    ...(script ? { script } : {}),
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') },
  })
  try {
    for (const url of [...hanging, `${receiver.baseUrl}/hooks`]) {
      const response = await fetch(`${service.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url, types: ['pet.created'] }),
      })
      if (response.status !== 201) throw new Error(`registering ${url} answered ${response.status}`)
    }
    await fetch(`${receiver.baseUrl}/reset`, { method: 'POST' })
    const rate = Number(options.rate)
    const total = rate * Number(options.duration)
    const started = Date.now()
    for (let sent = 0; sent < total; sent++) {
      const wait = started + (sent * 1000) / rate - Date.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const response = await fetch(`${service.baseUrl}/v1/pets`, { method: 'POST', headers, body: CREATE_BODY })
      if (response.status !== 201) throw new Error(`create answered ${response.status}`)
      await response.arrayBuffer()
    }
    // Whatever has not arrived 60 s after the last create counts as never (the figures say how many arrived).
    const deadline = Date.now() + 60_000
    let stats = { distinct: 0, latencies: [] as number[] }
    do {
      await new Promise((resolve) => setTimeout(resolve, 250))
      stats = (await (await fetch(`${receiver.baseUrl}/stats`)).json()) as typeof stats
    } while (stats.distinct < total && Date.now() < deadline)
    const sorted = [...stats.latencies].sort((a, b) => a - b)
    return {
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      max: sorted.at(-1) ?? NaN,
      received: stats.distinct,
      sent: total,
    }
  } finally {
    await service.stop()
  }
}

async function main(): Promise<void> {
  installCleanup()
  startWatchdog(Number(options['time-limit']))
  log(`bench:webhooks-fair: ${describeMachine()}`)
  const receiver = await startBenchServer('receiver', `${compileBenchServers()}/webhook-receiver.js`, {})
  const hanging = await startHanging(Number(options.hanging))
  const builds: [string, string | undefined][] = [['this build', undefined]]
  if (options.before) builds.push(['before', options.before])
  const results = new Map<string, Figures[]>(builds.map(([label]) => [label, []]))
  try {
    for (let index = 1; index <= Number(options.rounds); index++) {
      for (const [label, script] of index % 2 === 1 ? builds : [...builds].reverse()) {
        const figures = await round(script, receiver, hanging.urls)
        log(`round ${index}, ${label}: ${JSON.stringify(figures)}`)
        results.get(label)?.push(figures)
      }
    }
  } finally {
    hanging.close()
    await receiver.stop()
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN
  const rows = builds.map(([label]) => {
    const rounds = results.get(label) ?? []
    const of = (key: keyof Figures) => median(rounds.map((figures) => figures[key]))
    return [label, `${of('p50')} ms`, `${of('p99')} ms`, `${of('max')} ms`, `${of('received')} of ${of('sent')}`]
  })
  console.log(
    `${describeRevision(ROOT)}; ${options.postgres ? 'PostgreSQL' : 'SQLite'}; ${options.hanging} hanging ` +
      `endpoints, ${options.rate} creates/s for ${options.duration} s`,
  )
  console.log(markdownTable(['build', 'healthy p50', 'healthy p99', 'healthy max', 'received'], rows))
}

await main()
