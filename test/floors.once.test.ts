// The folders of src/ are floors (docs/architecture.md, "The folders as floors"): a folder imports only the
// folders on the floors its row below allows, no two folders import each other (directly or round a longer
// loop), and a check of the SQL dialect appears only in db/. Read from the sources, with TypeScript's own
// scanner of imports (static, type-only, re-exports and dynamic import()).
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'

const SOURCES = resolve(process.cwd(), 'src')

// The shared floors, bottom up; the features above them; then the composition on top.
const SHARED = ['config', 'domain', 'redis', 'db', 'http', 'idempotency', 'events']
const FEATURES = ['pets', 'orders', 'categories', 'webhooks', 'keys']
const TOP = [
  ...[
    'app',
    'api-routes',
    'server',
    'cli',
    'end-by-signal',
    'services',
    'event-document',
    'startup-errors',
    'log-destination',
  ],
  'move',
]
/** Folder (or file at the top of src/) → the folders it may import. */
const FLOORS: Record<string, readonly string[]> = {
  // Configuration (config.ts and config/): read by every floor, knows none.
  config: [],
  domain: [],
  redis: [],
  db: ['config', 'domain'],
  // The rate limit keeps its counts in Redis when one is configured.
  http: ['config', 'domain', 'db', 'redis'],
  idempotency: ['config', 'domain', 'db', 'http'],
  events: ['config', 'domain', 'db', 'http', 'idempotency'],
  ...Object.fromEntries(
    FEATURES.map((feature) => [feature, ['config', 'domain', 'db', 'http', 'idempotency', 'events']]),
  ),
  // The composition and the tools on top: anything below them (cycles are still refused).
  ...Object.fromEntries(TOP.map((top) => [top, [...SHARED, ...FEATURES, ...TOP]])),
}

/** One relative import: the importing file and the imported one, both relative to src/. */
export interface Import {
  from: string
  to: string
}

/** The floor a file (relative to src/) stands on: its top folder, or a top file's name; config.ts is config's. */
export function floorOf(file: string): string {
  const [first = '', ...rest] = file.split('/')
  return rest.length > 0 ? first : first.replace(/\.ts$/, '')
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

const slashed = (path: string) => path.split(sep).join('/')

function readSources(): { file: string; text: string }[] {
  return sourceFiles(SOURCES).map((path) => ({
    file: slashed(relative(SOURCES, path)),
    text: readFileSync(path, 'utf8'),
  }))
}

/** Every relative import of `text` (the file `file`, relative to src/), as files relative to src/. */
export function relativeImports(file: string, text: string): Import[] {
  const { importedFiles } = ts.preProcessFile(text, true, true)
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('./') || name.startsWith('../'))
    .map((name) => ({ from: file, to: slashed(join(dirname(file), name)).replace(/\.js$/, '.ts') }))
}

/** Each import that crosses to a floor its importer's row does not allow, as "file imports file (a → b)". */
export function floorViolations(imports: readonly Import[], floors: Record<string, readonly string[]>): string[] {
  return imports.flatMap(({ from, to }) => {
    const [importer, imported] = [floorOf(from), floorOf(to)]
    const allowed = floors[importer]
    if (!allowed) return [`${from} stands on no floor of the table (${importer})`]
    if (importer === imported || allowed.includes(imported)) return []
    return [`${from} imports ${to} (${importer} → ${imported})`]
  })
}

/** Every loop of floors importing each other, each as "a → b → a" with one import per step. */
export function floorCycles(imports: readonly Import[]): string[] {
  const edges = new Map<string, Map<string, Import>>()
  for (const entry of imports) {
    const [from, to] = [floorOf(entry.from), floorOf(entry.to)]
    if (from === to) continue
    const targets = edges.get(from) ?? new Map<string, Import>()
    if (!targets.has(to)) targets.set(to, entry)
    edges.set(from, targets)
  }
  const cycles: string[] = []
  const done = new Set<string>()
  const visit = (floor: string, path: string[]) => {
    if (done.has(floor)) return
    const start = path.indexOf(floor)
    if (start >= 0) {
      const loop = [...path.slice(start), floor]
      const steps = loop.slice(1).map((to, index) => {
        const from = loop[index] ?? ''
        const example = edges.get(from)?.get(to)
        return `${from} → ${to} (${example?.from} imports ${example?.to})`
      })
      cycles.push(steps.join(', '))
      return
    }
    for (const next of [...(edges.get(floor)?.keys() ?? [])].sort()) visit(next, [...path, floor])
    done.add(floor)
  }
  for (const floor of [...edges.keys()].sort()) visit(floor, [])
  return cycles
}

// A check of which SQL dialect runs the statement: Kysely's adapters and dialects, a comparison of the store's
// dialect, of the configured database's kind or of a store's name (a move session's).
const DIALECT_CHECK = new RegExp(
  /\b(PostgresAdapter|SqliteAdapter|PostgresDialect|SqliteDialect)\b|\bdialect\s*[!=]==/.source +
    /|\b(dialect|kind|name)\s*[!=]==\s*['"](sqlite|postgres)['"]/.source,
)

/** Each line outside db/ that checks the dialect, as "file:line: the line". */
export function dialectChecks(sources: readonly { file: string; text: string }[]): string[] {
  return sources
    .filter(({ file }) => floorOf(file) !== 'db')
    .flatMap(({ file, text }) =>
      text
        .split('\n')
        .flatMap((line, index) => (DIALECT_CHECK.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    )
}

describe('the folders of src/ as floors', () => {
  const sources = readSources()
  const imports = sources.flatMap(({ file, text }) => relativeImports(file, text))

  it('reads the imports of every kind, each to a file that exists', () => {
    const files = new Set(sources.map(({ file }) => file))
    const cli = imports.filter(({ from }) => from === 'cli/main.ts').map(({ to }) => to)
    assert.ok(cli.includes('move/move-command.ts'), 'the CLI imports the move command dynamically')
    assert.ok(cli.includes('cli/usage.ts'))
    assert.deepEqual(
      imports.filter(({ to }) => !files.has(to)),
      [],
    )
  })

  it('gives every folder and top file of src/ a row of the table', () => {
    const floors = new Set(sources.map(({ file }) => floorOf(file)))
    assert.deepEqual([...floors].filter((floor) => !FLOORS[floor]).sort(), [])
  })

  it('has every folder import only the floors its row allows', () => {
    assert.deepEqual(floorViolations(imports, FLOORS), [])
  })

  it('has no folders importing each other, directly or round a loop', () => {
    assert.deepEqual(floorCycles(imports), [])
  })

  it('checks the SQL dialect only in db/', () => {
    assert.deepEqual(dialectChecks(sources), [])
  })

  it("keeps the webhook deliverer (webhooks/delivery/) apart from the endpoints' API (webhooks/endpoints/)", () => {
    const delivery = imports.filter(({ from }) => from.startsWith('webhooks/delivery/'))
    assert.ok(
      delivery.some(({ to }) => to === 'webhooks/secret-box.ts'),
      'the deliverer reads the shared secrets',
    )
    assert.deepEqual(
      delivery.filter(({ to }) => to.startsWith('webhooks/endpoints/')),
      [],
    )
  })
})

describe('the checks of the floors', () => {
  it('name a feature that imports another feature, and a shared floor that imports a feature', () => {
    const imports = relativeImports('pets/pet-maintenance.ts', "import { x } from '../orders/order.repository.js'")
    assert.deepEqual(floorViolations(imports, FLOORS), [
      'pets/pet-maintenance.ts imports orders/order.repository.ts (pets → orders)',
    ])
    const typeOnly = relativeImports('http/metrics.ts', "import type { EventStats } from '../events/event.service.js'")
    assert.deepEqual(floorViolations(typeOnly, FLOORS), [
      'http/metrics.ts imports events/event.service.ts (http → events)',
    ])
    assert.deepEqual(floorViolations([{ from: 'jobs/run.ts', to: 'db/store.ts' }], FLOORS), [
      'jobs/run.ts stands on no floor of the table (jobs)',
    ])
  })

  it('allow what the table allows: a feature on events/, the composition on a feature, a folder on itself', () => {
    const imports = [
      ...relativeImports('orders/order.service.ts', "export { recordEvent } from '../events/event-log.js'"),
      ...relativeImports('services.ts', "const { x } = await import('./pets/pet.service.js')"),
      ...relativeImports('db/sqlite/reads.ts', "import { y } from '../database.js'"),
    ]
    assert.deepEqual(
      imports.map(({ to }) => to),
      ['events/event-log.ts', 'pets/pet.service.ts', 'db/database.ts'],
    )
    assert.deepEqual(floorViolations(imports, FLOORS), [])
  })

  it('name a loop of folders with one import of each step', () => {
    const imports = [
      { from: 'pets/a.ts', to: 'orders/b.ts' },
      { from: 'orders/b.ts', to: 'categories/c.ts' },
      { from: 'categories/c.ts', to: 'pets/d.ts' },
      { from: 'pets/a.ts', to: 'db/store.ts' },
    ]
    assert.deepEqual(floorCycles(imports), [
      'categories → pets (categories/c.ts imports pets/d.ts), pets → orders (pets/a.ts imports orders/b.ts), ' +
        'orders → categories (orders/b.ts imports categories/c.ts)',
    ])
    assert.deepEqual(floorCycles(imports.slice(0, 2)), [])
  })

  it('name a dialect check outside db/ with its file and line, and pass one inside db/', () => {
    const text = [
      "import { PostgresAdapter } from 'kysely'",
      'const postgres = trx.getExecutor().adapter instanceof PostgresAdapter',
      "if (store.dialect === 'sqlite') read()",
      "const file = database.kind === 'sqlite'",
      "const bound = session.name === 'postgres' ? a : b",
      "if (problem.kind === 'inexact-number') return",
    ].join('\n')
    assert.deepEqual(
      dialectChecks([
        { file: 'webhooks/fan-out.repository.ts', text },
        { file: 'db/postgres/claim.ts', text },
      ]),
      [
        "webhooks/fan-out.repository.ts:1: import { PostgresAdapter } from 'kysely'",
        'webhooks/fan-out.repository.ts:2: const postgres = trx.getExecutor().adapter instanceof PostgresAdapter',
        "webhooks/fan-out.repository.ts:3: if (store.dialect === 'sqlite') read()",
        "webhooks/fan-out.repository.ts:4: const file = database.kind === 'sqlite'",
        "webhooks/fan-out.repository.ts:5: const bound = session.name === 'postgres' ? a : b",
      ],
    )
  })
})
