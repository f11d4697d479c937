// Turning rounds into the one table: medians of rounds, ratios to L from the same run, and where the
// service stands against its targets.
import { median, type Measurement } from './load.js'

export interface RoundResult extends Measurement {
  peakRssMiB: number
  /** CPU time (user + system) of the server process per response, in µs. */
  cpuMicrosPerRequest: number
}

export interface ScenarioSummary {
  id: string
  label: string
  requestsPerSecond: number
  /** (max − min) / median of the rounds' req/s, in percent: how noisy this row was. */
  spreadPercent: number
  p50: number
  p99: number
  peakRssMiB: number
  /** Median of the rounds: the server process's CPU per response, in µs. */
  cpuMicrosPerRequest: number
  unexpected: Record<string, number>
  errors: number
  rounds: RoundResult[]
}

export function summarise(id: string, label: string, rounds: RoundResult[]): ScenarioSummary {
  const rates = rounds.map((round) => round.requestsPerSecond)
  const middle = median(rates)
  const unexpected: Record<string, number> = {}
  for (const round of rounds) {
    for (const [status, count] of Object.entries(round.unexpected))
      unexpected[status] = (unexpected[status] ?? 0) + count
  }
  return {
    id,
    label,
    requestsPerSecond: middle,
    spreadPercent: rounds.length > 1 ? ((Math.max(...rates) - Math.min(...rates)) / middle) * 100 : 0,
    p50: median(rounds.map((round) => round.p50)),
    p99: median(rounds.map((round) => round.p99)),
    peakRssMiB: Math.max(...rounds.map((round) => round.peakRssMiB).filter(Number.isFinite)),
    cpuMicrosPerRequest: median(rounds.map((round) => round.cpuMicrosPerRequest)),
    unexpected,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    rounds,
  }
}

export const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a')
const thousands = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a')

function problems(summary: ScenarioSummary): string {
  const parts = Object.entries(summary.unexpected).map(([status, count]) => `${count}×${status}`)
  if (summary.errors > 0) parts.push(`${summary.errors} errors`)
  return parts.length > 0 ? parts.join(', ') : '0'
}

/** A Markdown table, readable as is in a terminal and pasteable into docs/benchmarks.md. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)))
  const padded = (cell: string, column: number) =>
    column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)
  const line = (cells: string[]) => `| ${cells.map(padded).join(' | ')} |`
  const ruleCell = (width: number, column: number) => `${'-'.repeat(width + 1)}${column === 0 ? '-' : ':'}`
  const rule = `|${widths.map(ruleCell).join('|')}|`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

export function resultsTable(summaries: ScenarioSummary[], limit: number, framework: number): string {
  const frameworkCpu = summaries.find((summary) => summary.id === 'framework')?.cpuMicrosPerRequest ?? NaN
  return markdownTable(
    [
      'scenario',
      'req/s',
      '× L',
      '× F',
      '± %',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      'CPU × F',
      'peak RSS MiB',
      'non-2xx/errors',
    ],
    summaries.map((summary) => [
      summary.label,
      thousands(summary.requestsPerSecond),
      fixed(summary.requestsPerSecond / limit, 2),
      fixed(summary.requestsPerSecond / framework, 2),
      fixed(summary.spreadPercent, 0),
      fixed(summary.p50, 2),
      fixed(summary.p99, 2),
      fixed(summary.cpuMicrosPerRequest, 1),
      // F's CPU per request over this row's: the share of F's rate this row would reach if CPU were all it took.
      fixed(frameworkCpu / summary.cpuMicrosPerRequest, 2),
      fixed(summary.peakRssMiB, 0),
      problems(summary),
    ]),
  )
}

export interface IdleRss {
  /** 2 s after the start and the checks, before any load. */
  afterStartMiB: number
  /** After another 30 s of idleness. */
  afterStartSettledMiB: number
  /** 3 s after the last round. */
  afterLoadMiB: number
  /** After another 30 s of idleness, once V8 has given back what the load made it take. */
  afterLoadSettledMiB: number
}

type Verdict = 'met' | 'NOT met' | 'not measured'
/** The targets are in MB (10^6 bytes); the tables in MiB (2^20 bytes), as /proc reports them. */
export const toMB = (mib: number) => (mib * 2 ** 20) / 1e6
export const verdict = (ok: boolean | undefined): Verdict =>
  ok === undefined ? 'not measured' : ok ? 'met' : 'NOT met'

/**
 * The ratios of two rows round by round (measured seconds apart, not the whole run apart): their range says
 * how far the noise of a busy machine could move the ratio of the medians, and their median is the paired
 * estimate, which a slow minute of the host (it moves both rows of a round) sways less.
 */
export function roundRange(numerator: ScenarioSummary, denominator: ScenarioSummary): string {
  const ratios = numerator.rounds
    .map((round, index) => round.requestsPerSecond / (denominator.rounds[index]?.requestsPerSecond ?? NaN))
    .filter(Number.isFinite)
  return ratios.length > 1
    ? ` (rounds: ${fixed(Math.min(...ratios), 2)}–${fixed(Math.max(...ratios), 2)}, median of the rounds' ratios ` +
        `${fixed(median(ratios), 2)})`
    : ''
}

/** PostgreSQL's targets: ratios to L, to the plain Fastify + pg reference, and one vs two instances. */
function postgresTargets(byId: Map<string, ScenarioSummary>, limit: number): string[] {
  const lines: string[] = []
  const ratio = (id: string) => (byId.get(id)?.requestsPerSecond ?? NaN) / limit
  const baseline = byId.get('baseline')
  for (const [id, name] of [
    ['list', 'list 20'],
    ['get', 'get one (random id)'],
  ] as const) {
    const row = byId.get(id)
    if (row && baseline) {
      lines.push(
        `${name} ≥ 0.30 × L with p99 ≤ 20 ms: ${fixed(ratio(id), 2)} × L${roundRange(row, baseline)}, p99 ` +
          `${fixed(row.p99, 1)} ms → ${verdict(ratio(id) >= 0.3 && row.p99 <= 20)}`,
      )
    }
  }
  const create = byId.get('create')
  if (create && baseline)
    lines.push(
      `create (durable) ≥ 0.15 × L: ${fixed(ratio('create'), 2)} × L${roundRange(create, baseline)} → ` +
        `${verdict(ratio('create') >= 0.15)}`,
    )
  for (const [id, referenceId, target] of [
    ['list', 'ref-pg-list', 1.5],
    ['get', 'ref-pg-get', undefined],
  ] as const) {
    const row = byId.get(id)
    const reference = byId.get(referenceId)
    if (!row || !reference) continue
    const times = row.requestsPerSecond / reference.requestsPerSecond
    const figures =
      `${fixed(times, 2)} ×${roundRange(row, reference)}, ${thousands(row.requestsPerSecond)} vs ` +
      `${thousands(reference.requestsPerSecond)} req/s`
    lines.push(
      target === undefined
        ? `${id} / the plain Fastify + pg ${id}: ${figures}`
        : `${id} ≥ ${target} × the plain Fastify + pg ${id}: ${figures} → ${verdict(times >= target)}`,
    )
  }
  for (const kind of ['list', 'get']) {
    const one = byId.get(`nginx-${kind}-1`)
    const two = byId.get(`nginx-${kind}-2`)
    if (one && two)
      lines.push(
        `${kind} via nginx, two instances / one: ${fixed(two.requestsPerSecond / one.requestsPerSecond, 2)} ` +
          `×${roundRange(two, one)}, ${thousands(two.requestsPerSecond)} vs ${thousands(one.requestsPerSecond)} ` +
          'req/s (both on the same two cores)',
      )
  }
  return lines
}

/** The targets, each with the figure it is judged on: SQLite's or PostgreSQL's. */
export function targetsReport(
  summaries: ScenarioSummary[],
  limit: number,
  idle: IdleRss | undefined,
  store: 'sqlite' | 'postgres' = 'sqlite',
): string {
  const byId = new Map(summaries.map((summary) => [summary.id, summary]))
  const ratio = (id: string) => (byId.get(id)?.requestsPerSecond ?? NaN) / limit
  const lines: string[] = store === 'postgres' ? postgresTargets(byId, limit) : []
  const baseline = byId.get('baseline')
  const list = store === 'sqlite' ? byId.get('list') : undefined
  const get = store === 'sqlite' ? byId.get('get') : undefined
  const getSame = byId.get('get-same')
  if (list && baseline) {
    const ok = ratio('list') >= 0.4 && list.p99 <= 10
    lines.push(
      `list 20 ≥ 0.40 × L with p99 ≤ 10 ms: ${fixed(ratio('list'), 2)} × L${roundRange(list, baseline)}, p99 ` +
        `${fixed(list.p99, 1)} ms → ${verdict(ok)}`,
    )
  }
  if (get && baseline)
    lines.push(
      `get one ≥ 0.45 × L, a random id of N: ${fixed(ratio('get'), 2)} × L${roundRange(get, baseline)} → ` +
        `${verdict(ratio('get') >= 0.45)}`,
    )
  if (getSame && baseline)
    lines.push(
      `get one ≥ 0.45 × L, the same id: ${fixed(ratio('get-same'), 2)} × L${roundRange(getSame, baseline)} → ` +
        `${verdict(ratio('get-same') >= 0.45)}`,
    )
  const create = byId.get('create')
  const reference = byId.get('ref-create')
  if (create && reference) {
    const times = create.requestsPerSecond / reference.requestsPerSecond
    lines.push(
      `create (durable) ≥ 3 × one-fsync-per-request: ${fixed(times, 2)} ×${roundRange(create, reference)}, ` +
        `${thousands(create.requestsPerSecond)} vs ${thousands(reference.requestsPerSecond)} req/s → ` +
        `${verdict(times >= 3)}`,
    )
  }
  const update = byId.get('update')
  if (update && create) {
    // A conditional PATCH (a read, a conditional update, the same group commit) keeps up with a create.
    const times = update.requestsPerSecond / create.requestsPerSecond
    lines.push(
      `update (PATCH with If-Match) ≥ create (durable): ${fixed(times, 2)} ×${roundRange(update, create)}, ` +
        `${thousands(update.requestsPerSecond)} vs ${thousands(create.requestsPerSecond)} req/s → ` +
        `${verdict(times >= 1)}`,
    )
  }
  const createBefore = byId.get('create-before')
  if (create && createBefore) {
    const times = create.requestsPerSecond / createBefore.requestsPerSecond
    lines.push(
      `durable create with events ≥ 0.85 × the --before build's: ${fixed(times, 2)} ` +
        `×${roundRange(create, createBefore)}, ${thousands(create.requestsPerSecond)} vs ` +
        `${thousands(createBefore.requestsPerSecond)} req/s → ${verdict(times >= 0.85)}`,
    )
  }
  const deep = byId.get('deep')
  const early = byId.get('early')
  if (deep && early) {
    // The target: depth itself costs nothing. Both rows are cursor pages (HMAC check, mostly uncached keyset queries).
    const share = deep.requestsPerSecond / early.requestsPerSecond
    lines.push(
      `deep page within 20 % of an early page (both by cursor): ${fixed(share, 2)} × its ` +
        `req/s${roundRange(deep, early)}, p50 ${fixed(deep.p50, 2)} vs ${fixed(early.p50, 2)} ms → ` +
        `${verdict(share >= 0.8)}`,
    )
  }
  const firstPage = byId.get('list')
  if (deep && firstPage) {
    // For scale: the first page needs no cursor check and is answered from the page cache.
    lines.push(
      'deep page / first page (no cursor, cached): ' +
        `${fixed(deep.requestsPerSecond / firstPage.requestsPerSecond, 2)} × its ` +
        `req/s${roundRange(deep, firstPage)}`,
    )
  }
  const loaded = summaries.filter((summary) =>
    ['list', 'list-status', 'early', 'deep', 'get', 'get-same', 'mixed', 'create'].includes(summary.id),
  )
  if (loaded.length > 0) {
    const peak = Math.max(...loaded.map((summary) => summary.peakRssMiB))
    lines.push(
      `RSS under load ≤ 120 MB: peak ${fixed(peak, 0)} MiB = ${fixed(toMB(peak), 0)} MB → ` +
        `${verdict(toMB(peak) <= 120)}`,
    )
  }
  if (idle) {
    // Judged on the service at rest: 30 s idle after start and after the load. Right after either, V8 has not
    // yet given back the heap that start-up or the load made it take; those figures are shown too.
    const worst = Math.max(idle.afterStartSettledMiB, idle.afterLoadSettledMiB)
    lines.push(
      `RSS idle ≤ 80 MB: ${fixed(toMB(idle.afterStartSettledMiB), 0)} MB after start and ` +
        `${fixed(toMB(idle.afterLoadSettledMiB), 0)} MB after the load, each after 30 s idle (2–3 s after them: ` +
        `${fixed(toMB(idle.afterStartMiB), 0)} and ${fixed(toMB(idle.afterLoadMiB), 0)} MB) → ` +
        `${verdict(toMB(worst) <= 80)}`,
    )
  }
  lines.push('list/get latency grows at most logarithmically: see npm run bench:scale')
  return lines.map((line) => `- ${line}`).join('\n')
}
