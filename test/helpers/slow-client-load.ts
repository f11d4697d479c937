// A separate Node process that attacks a server with slow clients while a probe measures its latency, so that
// neither the attackers' timers nor the probe share an event loop with the server they measure.
//   node --import tsx test/helpers/slow-client-load.ts '{"port":8080,...}'   → one JSON line of results on stdout
// Slow-header clients send their head one byte a second, slow-body clients a declared 16000-byte body one byte a
// second, idle clients keep a keep-alive connection open after one request. A client the server cuts off is
// replaced at once, so the pressure stays constant. The probe opens a fresh connection for every request, on a
// fixed schedule (not waiting for the previous answer, so a stalled server shows as latency, not fewer requests).
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'

export interface LoadOptions {
  port: number
  apiKey: string
  baselineMs: number
  attackMs: number
  probeIntervalMs: number
  slowHeaders: number
  slowBodies: number
  idleKeepAlive: number
}

export interface AttackerReport {
  /** Connections opened over the whole attack. */
  connections: number
  /** Per connection the server closed: how long it lived, and what it was answered (raw text). */
  cutOff: { lifetimeMs: number; response: string }[]
  /** Connections that failed with a socket error instead (refused, reset before any answer), by error code. */
  failed: string[]
  /** Connections still open when the attack ended. */
  stillOpen: number
}

export interface LoadReport {
  baseline: { latenciesMs: number[]; failures: string[] }
  attack: { latenciesMs: number[]; failures: string[] }
  slowHeaders: AttackerReport
  slowBodies: AttackerReport
  idleKeepAlive: AttackerReport
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function probeOnce(options: LoadOptions): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: '/v1/pets?limit=1',
        agent: false,
        timeout: 5000,
        headers: { authorization: `Bearer ${options.apiKey}`, connection: 'close' },
      },
      (response) => {
        response.resume()
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`status ${response.statusCode}`)),
        )
      },
    )
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 5 s')))
    outgoing.on('error', reject)
    outgoing.end()
  })
}

async function probe(options: LoadOptions, durationMs: number) {
  const latenciesMs: number[] = []
  const failures: string[] = []
  const pending: Promise<void>[] = []
  const end = performance.now() + durationMs
  while (performance.now() < end) {
    pending.push(
      probeOnce(options).then(
        (ms) => void latenciesMs.push(ms),
        (error: Error) => void failures.push(error.message),
      ),
    )
    await sleep(options.probeIntervalMs)
  }
  await Promise.all(pending)
  return { latenciesMs, failures }
}

/** Keeps `count` connections of one kind open until stopped, replacing every one the server closes. */
function attackers(options: LoadOptions, count: number, head: string, trickle: string) {
  const report: AttackerReport = { connections: 0, cutOff: [], failed: [], stillOpen: 0 }
  const open = new Map<Socket, { position: number; text: string; trickling: string; connected: boolean }>()
  let stopped = false
  const start = () => {
    const socket = connect(options.port, '127.0.0.1')
    const opened = performance.now()
    report.connections++
    let failure: string | undefined
    open.set(socket, { position: 0, text: '', trickling: trickle, connected: false })
    socket.on('data', (chunk: Buffer) => {
      const state = open.get(socket)
      if (state) state.text += chunk.toString('latin1')
    })
    socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message))
    socket.on('close', () => {
      const state = open.get(socket)
      open.delete(socket)
      if (stopped) return
      if (failure !== undefined && !state?.text) report.failed.push(failure)
      else report.cutOff.push({ lifetimeMs: performance.now() - opened, response: state?.text ?? '' })
      start()
    })
    socket.on('connect', () => {
      socket.write(head)
      const state = open.get(socket)
      if (state) state.connected = true
    })
  }
  for (let index = 0; index < count; index++) start()
  // One byte a second on every connection that trickles.
  const timer = setInterval(() => {
    for (const [socket, state] of open) {
      if (state.trickling === '' || !state.connected || !socket.writable) continue
      socket.write(state.trickling[state.position % state.trickling.length] ?? 'a')
      state.position++
    }
  }, 1000)
  return {
    stop(): AttackerReport {
      stopped = true
      clearInterval(timer)
      report.stillOpen = open.size
      for (const socket of open.keys()) socket.destroy()
      return report
    },
  }
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const baseline = await probe(options, options.baselineMs)
  const slowHeaders = attackers(
    options,
    options.slowHeaders,
    'G',
    'ET /v1/pets HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(10_000),
  )
  const slowBodies = attackers(
    options,
    options.slowBodies,
    `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${options.apiKey}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: 16000\r\n\r\n{"name":"`,
    'a',
  )
  const idleKeepAlive = attackers(
    options,
    options.idleKeepAlive,
    'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n',
    '',
  )
  // Let the attackers connect before measuring.
  await sleep(500)
  const attack = await probe(options, options.attackMs)
  return {
    baseline,
    attack,
    slowHeaders: slowHeaders.stop(),
    slowBodies: slowBodies.stop(),
    idleKeepAlive: idleKeepAlive.stop(),
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const report = await runLoad(JSON.parse(process.argv[2] ?? '{}') as LoadOptions)
  process.stdout.write(`${JSON.stringify(report)}\n`)
}
