// The "plain approach" reference: the smallest reasonable Fastify 5 + better-sqlite3 implementation of list
// and create, with no logging, no metrics and no hooks beyond the bearer check. Its create is the
// one-fsync-per-request approach (WAL, synchronous=FULL, one INSERT per request) that the service's create
// is compared against; its list is context for what Fastify over SQLite costs without the service's extras.
// Started by bench/run.ts on a migrated database; prints `listening PORT` and exits when its parent goes away.
import SqliteDatabase from 'better-sqlite3'
import Fastify from 'fastify'

const key = process.env.BENCH_API_KEY
const path = process.env.BENCH_SQLITE_PATH
if (!key || !path) throw new Error('BENCH_API_KEY and BENCH_SQLITE_PATH are required')
const expected = `Bearer ${key}`

const database = new SqliteDatabase(path)
database.pragma('journal_mode = WAL')
database.pragma('synchronous = FULL')
database.pragma('busy_timeout = 5000')

interface Row {
  id: number
  name: string
  category_id: number
  status: string
}
const firstPage = database.prepare<[], Row>('select id, name, category_id, status from pets order by id limit 21')
const insert = database.prepare<[string, number, string], Row>(
  'insert into pets (name, category_id, status) values (?, ?, ?) returning id, name, category_id, status',
)
const toPet = (row: Row) => ({ id: row.id, name: row.name, categoryId: row.category_id, status: row.status })

const pet = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
  required: ['id', 'name', 'categoryId', 'status'],
} as const

const app = Fastify({ logger: false })
app.addHook('onRequest', async (request, reply) => {
  if (request.headers.authorization !== expected)
    return reply.code(401).send({ code: 'unauthorized', message: 'An API key is required.', status: 401 })
})
app.get('/v1/pets', { schema: { response: { 200: { type: 'array', items: pet } } } }, async () =>
  firstPage.all().slice(0, 20).map(toPet),
)
app.post<{ Body: { name: string; categoryId: number; status?: string } }>(
  '/v1/pets',
  {
    schema: {
      body: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          categoryId: { type: 'integer', minimum: 1 },
          status: { type: 'string', enum: ['available', 'pending', 'sold'] },
        },
        required: ['name', 'categoryId'],
        additionalProperties: false,
      },
      response: { 201: pet },
    },
  },
  async (request, reply) => {
    const row = insert.get(request.body.name, request.body.categoryId, request.body.status ?? 'available')
    return reply.code(201).send(row ? toPet(row) : undefined)
  },
)

const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${new URL(address).port}\n`)

process.stdin.resume()
process.stdin.on('end', () => {
  database.close()
  process.exit(0)
})
