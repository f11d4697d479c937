// What each step of a request costs, from a .cpuprofile of the unbundled service (node --cpu-prof dist/cli/main.js
// serve: the bundle puts every file into one, so files no longer tell steps apart). Each sample of the last
// SECONDS before the profile ends is given to one step: logging when the log is anywhere on its stack (its
// write is Node's fs code called by the log), otherwise the step of the innermost frame that belongs to one;
// samples in no step's code are Node's HTTP and socket machinery, Fastify's, the garbage collector or other.
//   tsx bench/cpu-steps.ts PROFILE REQUESTS [SECONDS] [STEP]
// STEP (the start of a step's name) also lists that step's top self-time functions.
// REQUESTS: the requests answered in those seconds, to give µs of busy time per request.
import { readFileSync } from 'node:fs'
import { markdownTable } from './report.js'

interface Node {
  id: number
  callFrame: { functionName: string; url: string }
  children?: number[]
}

/** Steps in the order of a request; the first whose pattern matches a frame's file (or package) wins. */
const STEPS: Array<[string, RegExp]> = [
  [
    'first hook (Host, request id, security headers, shutdown, repeated headers)',
    /dist\/http\/request\/(first-hook|security-headers|request-id|duplicate-headers|shutdown-guard)\.js/,
  ],
  ['CORS', /@fastify\/cors|dist\/http\/request\/cors\.js/],
  [
    'authentication (key digest per connection, scopes)',
    /dist\/(http\/auth\/(auth|auth\.plugin|authenticator|scopes|metrics-token)\.js|keys\/)/,
  ],
  [
    'rate limit (in-memory window counts)',
    /dist\/http\/auth\/(window-counts|rate-limit|spent-addresses)\.js|@fastify\/rate-limit/,
  ],
  ['validation (compiled schemas)', /\/ajv\/|dist\/http\/(validation\/|json\/(json-scan|json-body|utf8|media-type))/],
  [
    'database (cache, version, pg client and protocol)',
    /dist\/(db\/|pets\/pet-reads|pets\/pet\.repository)|\/pg\/|\/pg-protocol\/|\/pg-pool\/|\/kysely\//,
  ],
  ['serialisation (pets to JSON text)', /fast-json-stringify|dist\/http\/json\/prepared-json|dist\/pets\/pet\.mapper/],
  ['metrics (counted per route)', /dist\/http\/(metrics\/|request\/requests-in-flight\.js)|prom-client/],
  [
    'route and pagination (Link, cursor)',
    /dist\/(pets\/pet\.routes|pets\/pet\.service|http\/(pagination|cursor|response-headers|entity-tag))/,
  ],
  ['Fastify (routing, hooks, reply)', /\/fastify\/|find-my-way|avvio/],
]
const NODE = "Node's HTTP, streams and sockets (L pays these too)"
const LOGGING = /\/pino\/|sonic-boom|dist\/(log-destination|http\/request\/access-log|http\/request\/log-url)\.js/

function main(): void {
  const [file, requestsText, secondsText = '8', detail] = process.argv.slice(2)
  const details = new Map<string, number>()
  if (!file || !requestsText) throw new Error('usage: tsx bench/cpu-steps.ts PROFILE REQUESTS [SECONDS]')
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Node[]
    samples: number[]
    timeDeltas: number[]
    endTime: number
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const stepOf = new Map<number, string>()
  const classify = (leaf: number): string => {
    const known = stepOf.get(leaf)
    if (known) return known
    const frames: Node[] = []
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) frames.push(byId.get(id) as Node)
    const leafName = frames[0]?.callFrame.functionName ?? ''
    let step: string | undefined
    if (frames.some((frame) => LOGGING.test(frame.callFrame.url))) step = 'logging (pino line, write per batch)'
    // Node's own code called by Fastify (the response's socket write) is Node's, not Fastify's; called by a
    // step of ours (the database client's socket), it is that step's.
    let inNode = false
    for (const frame of frames) {
      if (step) break
      step = STEPS.find(([, pattern]) => pattern.test(frame.callFrame.url))?.[0]
      if (step?.startsWith('Fastify') && inNode) step = NODE
      inNode ||= frame.callFrame.url.startsWith('node:')
    }
    step ??=
      leafName === '(garbage collector)'
        ? 'garbage collector'
        : frames.some((frame) => frame.callFrame.url.startsWith('node:'))
          ? NODE
          : 'other (V8 built-ins, unattributed)'
    stepOf.set(leaf, step)
    return step
  }
  // Timestamps: the profile's end minus the deltas after each sample.
  const from = profile.endTime - Number(secondsText) * 1_000_000
  let time = profile.endTime
  const busy = new Map<string, number>()
  let total = 0
  for (let index = profile.samples.length - 1; index >= 0; index--) {
    const sampled = time
    time -= profile.timeDeltas[index] ?? 0
    if (sampled < from) break
    const node = byId.get(profile.samples[index] ?? -1)
    const name = node?.callFrame.functionName
    if (!node || name === '(idle)' || name === '(program)' || name === '(root)') continue
    const step = classify(node.id)
    const delta = profile.timeDeltas[index + 1] ?? 0
    busy.set(step, (busy.get(step) ?? 0) + delta)
    total += delta
    if (detail && step.startsWith(detail)) {
      const where = `${name ?? ''} ${node.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '')}`
      details.set(where, (details.get(where) ?? 0) + delta)
    }
  }
  const requests = Number(requestsText)
  const rows = [...busy].sort((a, b) => b[1] - a[1])
  console.log(
    markdownTable(
      ['step', 'share of busy time', 'µs per request'],
      [
        ...rows.map(([step, micros]) => [
          step,
          `${((100 * micros) / total).toFixed(1)} %`,
          (micros / requests).toFixed(1),
        ]),
        ['all', '100 %', (total / requests).toFixed(1)],
      ],
    ),
  )
  for (const [where, micros] of [...details].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`${(micros / requests).toFixed(2).padStart(7)} µs  ${where}`)
}

main()
