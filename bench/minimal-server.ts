// M, the minimal server: the least any server must do to answer the contract's get of a pet by id the way the
// service must, so that what the service costs can be told apart from what the contract and the store cost. Plain
// Fastify (this project's version), started with the service's node flags, with: the bearer check of F; the id
// validated by a route schema; one read of the store per request, batched as the service's is (SQLite: a prepared
// statement returning the pet's JSON text, the reads of a turn in one read transaction; PostgreSQL: the gets of a
// turn in one named query on a pooled connection, where the service pipelines its batches on two); the eleven
// headers the contract puts on the answer (a request id, the security, CORS and rate-limit headers, the ETag and
// the deprecated operation's three); and one pino line per request, written synchronously in 4 KiB chunks to
// BENCH_LOG_PATH. Nothing else: no key digest, scopes, counting for the rate limit, metrics, pet cache, data version,
// conditional requests, or the contract's error bodies.
// Started by bench/run.ts as its own process; prints `listening PORT` and exits when its parent goes away.
import { randomUUID } from 'node:crypto'
import SqliteDatabase from 'better-sqlite3'
import Fastify from 'fastify'
import pg from 'pg'
import pino from 'pino'
import { contractHeaders } from './contract-headers.js'

const key = process.env.BENCH_API_KEY
const sqlitePath = process.env.BENCH_SQLITE_PATH
const postgresUrl = process.env.BENCH_DATABASE_URL
if (!key || (!sqlitePath && !postgresUrl))
  throw new Error('BENCH_API_KEY and BENCH_SQLITE_PATH or BENCH_DATABASE_URL are required')
const expected = `Bearer ${key}`
const unauthorized = { code: 'unauthorized', message: 'An API key is required.', status: 401 }
const notFound = { code: 'not_found', message: 'No such pet.', status: 404 }

/** The pet's JSON text and version, or undefined when there is none with this id. */
type Found = [json: string, version: number] | undefined

function sqliteRead(path: string): (id: number) => Found {
  const database = new SqliteDatabase(path, { readonly: true })
  // As the service's reader: the reads of one event-loop turn in one read transaction (in WAL mode a statement
  // outside a transaction takes and drops a read lock of its own).
  const begin = database.prepare('begin')
  const commit = database.prepare('commit')
  const inTurn = <T>(read: () => T): T => {
    if (!database.inTransaction) {
      begin.run()
      setImmediate(() => {
        if (database.inTransaction) commit.run()
      })
    }
    return read()
  }
  const PET_JSON = `json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status)`
  const pet = database
    .prepare<[number], [string, number]>(`select ${PET_JSON}, version from pets where id = ? and deleted_at is null`)
    .raw()
  return (id) => inTurn(() => pet.get(id))
}

interface PetRow {
  id: string
  name: string
  category_id: string
  status: string
  version: number
}

function postgresRead(url: string): (id: number) => Promise<Found> {
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.BENCH_POOL_SIZE) || 10 })
  pool.on('error', () => {})
  // The same keys in the same order as the service's Pet; bigint columns arrive as text.
  const toJson = (row: PetRow) =>
    JSON.stringify({ id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status })
  let waiting: Array<{ id: number; resolve: (found: Found) => void; reject: (error: unknown) => void }> = []
  const send = () => {
    const batch = waiting
    waiting = []
    pool
      .query<PetRow>({
        name: 'minimal-pets',
        text: 'select id, name, category_id, status, version from pets where id = any($1) and deleted_at is null',
        values: [batch.map((entry) => entry.id)],
      })
      .then(
        ({ rows }) => {
          const byId = new Map(rows.map((row) => [Number(row.id), row]))
          for (const entry of batch) {
            const row = byId.get(entry.id)
            entry.resolve(row ? [toJson(row), row.version] : undefined)
          }
        },
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
  }
  return (id) =>
    new Promise((resolve, reject) => {
      if (waiting.length === 0) setImmediate(send)
      waiting.push({ id, resolve, reject })
    })
}

const readPet: (id: number) => Found | Promise<Found> = sqlitePath
  ? sqliteRead(sqlitePath)
  : postgresRead(postgresUrl ?? '')
// Synchronous writes of 4 KiB: no write through the thread pool, and about as few writes as the service's one a turn.
const destination = pino.destination({ dest: process.env.BENCH_LOG_PATH ?? '/dev/null', sync: true, minLength: 4096 })
const log = pino({ level: 'info' }, destination)

// Hooks and handlers with callbacks rather than promises where nothing is awaited: the cheapest way Fastify offers.
const app = Fastify({ logger: false, genReqId: () => randomUUID() })
app.addHook('onRequest', (request, reply, done) => {
  void reply.headers(contractHeaders(request.id))
  if (request.headers.authorization !== expected) void reply.code(401).send(unauthorized)
  else done()
})
app.addHook('onResponse', (request, reply, done) => {
  log.info(
    {
      reqId: request.id,
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      remoteAddress: request.ip,
    },
    'request completed',
  )
  done()
})

app.get<{ Params: { id: number } }>(
  '/v1/pets/:id',
  {
    schema: {
      params: {
        type: 'object',
        properties: { id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
        required: ['id'],
      },
    },
  },
  (request, reply) => {
    const answer = (found: Found) => {
      if (!found) return void reply.code(404).send(notFound)
      void reply
        .headers({
          deprecation: '@1767225600',
          sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
          link: `<http://${request.host}/v1/pets>; rel="successor-version"`,
          etag: `"${request.params.id}.${found[1]}"`,
        })
        .type('application/json; charset=utf-8')
        .send(found[0])
    }
    const found = readPet(request.params.id)
    if (found instanceof Promise) found.then(answer, (error: unknown) => void reply.send(error))
    else answer(found)
  },
)

const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${new URL(address).port}\n`)

process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
