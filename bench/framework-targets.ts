// Where the service stands against the framework it is built on: the read ratios to F (plain Fastify answering
// L's bytes), the read tails, the durable create against L, and memory, each judged from the same run.
import { fixed, roundRange, toMB, verdict, type IdleRss, type ScenarioSummary } from './report.js'

interface ReadTarget {
  minimumTimesF: number
  maximumP99Ms?: number
}

const READ_TARGETS: Record<'sqlite' | 'postgres', ReadTarget> = {
  sqlite: { minimumTimesF: 0.65 },
  postgres: { minimumTimesF: 0.5, maximumP99Ms: 25 },
}
const CREATE_TARGETS: Record<'sqlite' | 'postgres', { minimumTimesL: number; maximumP99Ms?: number }> = {
  sqlite: { minimumTimesL: 0.2, maximumP99Ms: 40 },
  postgres: { minimumTimesL: 0.15 },
}
const IDLE_RSS_MB = 80
const PEAK_RSS_MB = 150

/**
 * The same comparison in CPU per request of each process (bench/cpu-time.ts): steadier than requests per second
 * on a shared machine, and blind to what the service waits for (a disk, another process such as PostgreSQL).
 */
function cpuAgainst(row: ScenarioSummary, reference: ScenarioSummary, name: string): string {
  const times = reference.cpuMicrosPerRequest / row.cpuMicrosPerRequest
  return Number.isFinite(times)
    ? ` (CPU per request: ${fixed(row.cpuMicrosPerRequest, 1)} µs against ${name}'s ` +
        `${fixed(reference.cpuMicrosPerRequest, 1)}, ${fixed(times, 2)} × ${name} in CPU terms)`
    : ''
}

export function frameworkTargetsReport(
  summaries: ScenarioSummary[],
  idle: IdleRss | undefined,
  store: 'sqlite' | 'postgres',
): string {
  const byId = new Map(summaries.map((summary) => [summary.id, summary]))
  const framework = byId.get('framework')
  const limit = byId.get('baseline')
  const lines: string[] = []
  if (framework && limit)
    lines.push(
      `F / L: ${fixed(framework.requestsPerSecond / limit.requestsPerSecond, 2)}${roundRange(framework, limit)}`,
    )
  const read = READ_TARGETS[store]
  for (const [id, name] of [
    ['list', 'list 20'],
    ['get', 'get one (random id)'],
  ] as const) {
    const row = byId.get(id)
    if (!row || !framework) continue
    const times = row.requestsPerSecond / framework.requestsPerSecond
    const tail = read.maximumP99Ms === undefined ? '' : ` with p99 ≤ ${read.maximumP99Ms} ms`
    const ok = times >= read.minimumTimesF && (read.maximumP99Ms === undefined || row.p99 <= read.maximumP99Ms)
    lines.push(
      `${name} ≥ ${read.minimumTimesF} × F${tail}: ${fixed(times, 2)} × F${roundRange(row, framework)}, p99 ` +
        `${fixed(row.p99, 1)} ms → ${verdict(ok)}${cpuAgainst(row, framework, 'F')}`,
    )
  }
  // What the contract's headers alone cost the framework, and the list against a framework that sends them too.
  const withHeaders = byId.get('framework-headers')
  const list = byId.get('list')
  if (withHeaders && framework && list) {
    const headersCost = fixed(withHeaders.requestsPerSecond / framework.requestsPerSecond, 2)
    const listTimes = fixed(list.requestsPerSecond / withHeaders.requestsPerSecond, 2)
    lines.push(
      `F′ (F with the list's eight headers) / F: ${headersCost}${roundRange(withHeaders, framework)}; list 20: ` +
        `${listTimes} × F′${roundRange(list, withHeaders)}${cpuAgainst(list, withHeaders, 'F′')}`,
    )
  }
  // M, the least a server must do to answer the contract's get on this framework and this store
  // (bench/minimal-server.ts): the service's get against M is the part of its distance to F that is its own.
  const minimal = byId.get('minimal-get')
  const get = byId.get('get')
  if (minimal && framework)
    lines.push(
      `M (the least the contract's get needs): ` +
        `${fixed(minimal.requestsPerSecond / framework.requestsPerSecond, 2)} × F${roundRange(minimal, framework)}` +
        cpuAgainst(minimal, framework, 'F') +
        (get
          ? `; the service's get ${fixed(get.requestsPerSecond / minimal.requestsPerSecond, 2)} × M` +
            `${roundRange(get, minimal)}${cpuAgainst(get, minimal, 'M')}`
          : ''),
    )
  // The same reads of the earlier build (--before), measured in the same rounds on the same store.
  for (const id of ['list', 'get']) {
    const row = byId.get(id)
    const before = byId.get(`${id}-before`)
    if (!row || !before) continue
    const times = fixed(row.requestsPerSecond / before.requestsPerSecond, 2)
    const tails = `p99 ${fixed(row.p99, 1)} vs ${fixed(before.p99, 1)} ms`
    lines.push(`${row.label} against the --before build: ${times} × its req/s${roundRange(row, before)}, ${tails}`)
  }
  const create = byId.get('create')
  const wanted = CREATE_TARGETS[store]
  if (create && limit) {
    const times = create.requestsPerSecond / limit.requestsPerSecond
    const tail = wanted.maximumP99Ms === undefined ? '' : ` with p99 ≤ ${wanted.maximumP99Ms} ms`
    const ok = times >= wanted.minimumTimesL && (wanted.maximumP99Ms === undefined || create.p99 <= wanted.maximumP99Ms)
    lines.push(
      `create (durable) ≥ ${wanted.minimumTimesL} × L${tail}: ${fixed(times, 2)} × ` +
        `L${roundRange(create, limit)}, p99 ${fixed(create.p99, 1)} ms → ${verdict(ok)}` +
        cpuAgainst(create, limit, 'L'),
    )
  }
  // The service's own rows: none of L, F, F′, M, the references or the earlier build's (--before).
  const serviceRows = summaries.filter(
    (summary) =>
      !['baseline', 'framework', 'framework-headers'].includes(summary.id) &&
      !summary.id.endsWith('-before') &&
      !summary.id.startsWith('minimal-') &&
      !summary.id.startsWith('ref-'),
  )
  const peaks = serviceRows.map((summary) => summary.peakRssMiB).filter(Number.isFinite)
  if (peaks.length > 0) {
    const peak = Math.max(...peaks)
    lines.push(
      `RSS under load ≤ ${PEAK_RSS_MB} MB: peak ${fixed(toMB(peak), 0)} MB → ${verdict(toMB(peak) <= PEAK_RSS_MB)}`,
    )
  }
  if (idle)
    lines.push(
      `RSS idle after start ≤ ${IDLE_RSS_MB} MB: ${fixed(toMB(idle.afterStartSettledMiB), 0)} MB → ` +
        `${verdict(toMB(idle.afterStartSettledMiB) <= IDLE_RSS_MB)}`,
    )
  return lines.map((line) => `- ${line}`).join('\n')
}
