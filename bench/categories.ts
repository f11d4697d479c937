// Category filters on a 100,000-pet shop, on both stores, measured interleaved in one run (the machine is shared,
// so only ratios within a run mean anything):
//  - listPets pages filtered by categoryId (alone and with status) against the unfiltered page and the status
//    filter, through the pet reads the service uses (SQLite's prepared JSON statements, PostgreSQL's query
//    builder), without the page cache, each page after a random position;
//  - pet creates through the pet service on a shop with the category indexes against one without them.
// Run: npx tsx bench/categories.ts [--postgres postgres://…]
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { openStore, type Store } from '../src/db/store.js'
import type { PetPageQuery } from '../src/pets/pet.repository.js'
import { queryBuilderPetReads, type PetReads } from '../src/pets/pet-reads.js'
import { sqlitePetReads } from '../src/pets/pet-reads.sqlite.js'
import { runUnitOfWork } from '../src/db/unit-of-work.js'
import { createPetService } from '../src/pets/pet.service.js'
import { ordersForPets } from '../src/orders/orders-for-pets.js'
import { makeTempDirectory, removeTempDirectory } from './processes.js'
import { freshPostgresStore, sqliteStore, type BenchStore } from './seed.js'

const PETS = 100_000
const ROUNDS = 10
const READS_PER_ROUND = 200
const CREATES_PER_ROUND = 100

interface Opened {
  bench: BenchStore
  store: Store
}

async function open(kind: 'sqlite' | 'postgres', directory: string, name: string, postgresUrl: string) {
  const bench = kind === 'sqlite' ? sqliteStore(join(directory, `${name}.db`)) : await freshPostgresStore(postgresUrl)
  const store = openStore(loadConfig({ DATABASE_URL: bench.databaseUrl }))
  await migrateToLatest(store.admin)
  await bench.seedTo(PETS)
  return { bench, store }
}

const random = (below: number) => 1 + Math.floor(Math.random() * below)

/** The kinds of page, each a query made afresh per request (random category and position). */
const PAGES: Record<string, () => PetPageQuery> = {
  unfiltered: () => ({ status: undefined, afterId: random(PETS - 100), limit: 20 }),
  'status=pending': () => ({ status: 'pending', afterId: random(PETS / 2), limit: 20 }),
  'categoryId=N': () => ({ status: undefined, categoryId: random(50), afterId: random(PETS / 2), limit: 20 }),
  // The seed puts every pet of a category in one status: `available` finds nothing in half the categories.
  'categoryId=N&status=available': () => ({ status: 'available', categoryId: random(50), afterId: 0, limit: 20 }),
}

async function measureReads(reads: PetReads): Promise<Record<string, number>> {
  const totals: Record<string, number> = Object.fromEntries(Object.keys(PAGES).map((kind) => [kind, 0]))
  for (let round = 0; round < ROUNDS; round++)
    for (const [kind, query] of Object.entries(PAGES)) {
      const started = performance.now()
      for (let index = 0; index < READS_PER_ROUND; index++) await reads.page(query())
      totals[kind] = (totals[kind] ?? 0) + performance.now() - started
    }
  return Object.fromEntries(
    Object.entries(totals).map(([kind, ms]) => [kind, (ms * 1000) / (ROUNDS * READS_PER_ROUND)]),
  )
}

async function measureCreates(withIndexes: Store, without: Store): Promise<{ with: number; without: number }> {
  const services = [withIndexes, without].map((store) => ({
    store,
    pets: createPetService({ reads: queryBuilderPetReads(store.read), orders: ordersForPets }),
  }))
  const totals = [0, 0]
  for (let round = 0; round < ROUNDS; round++)
    for (const [index, { store, pets }] of services.entries()) {
      const started = performance.now()
      await Promise.all(
        Array.from({ length: CREATES_PER_ROUND }, (_, n) =>
          runUnitOfWork(
            store,
            (uow) => pets.create(uow, { name: `Bench ${round} ${n}`, categoryId: random(50), status: 'available' }),
            { changeEndsTransaction: true },
          ),
        ),
      )
      totals[index] = (totals[index] ?? 0) + performance.now() - started
    }
  const per = (ms = 0) => (ms * 1000) / (ROUNDS * CREATES_PER_ROUND)
  return { with: per(totals[0]), without: per(totals[1]) }
}

async function run(kind: 'sqlite' | 'postgres', directory: string, postgresUrl: string): Promise<void> {
  const opened: Opened[] = []
  try {
    const shop = await open(kind, directory, 'with-indexes', postgresUrl)
    opened.push(shop)
    const plain = await open(kind, directory, 'without-indexes', postgresUrl)
    opened.push(plain)
    for (const index of ['pets_category_id_id', 'pets_category_id_status_id'])
      await sql`drop index ${sql.id(index)}`.execute(plain.store.admin)
    const reads = shop.store.sqliteReader
      ? sqlitePetReads(shop.store.sqliteReader)
      : queryBuilderPetReads(shop.store.read)
    const pages = await measureReads(reads)
    const base = pages.unfiltered ?? 1
    console.log(`${kind}: listPets page of 20 on ${PETS} pets, mean µs per page (ratio to unfiltered):`)
    for (const [page, micros] of Object.entries(pages))
      console.log(`  ${page.padEnd(32)} ${micros.toFixed(0).padStart(6)} µs  ${(micros / base).toFixed(2)}`)
    const creates = await measureCreates(shop.store, plain.store)
    console.log(
      `${kind}: createPet, ${CREATES_PER_ROUND} at once, mean µs per create: with the category indexes ` +
        `${creates.with.toFixed(0)}, without ${creates.without.toFixed(0)} (ratio ` +
        `${(creates.with / creates.without).toFixed(2)})`,
    )
  } finally {
    for (const { bench, store } of opened) {
      await store.close()
      await bench.drop()
    }
  }
}

const { values } = parseArgs({ options: { postgres: { type: 'string' } }, strict: true })
const directory = makeTempDirectory()
try {
  await run('sqlite', directory, '')
  if (values.postgres) await run('postgres', directory, values.postgres)
} finally {
  removeTempDirectory(directory)
}
