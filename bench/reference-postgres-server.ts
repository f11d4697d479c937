// The "plain approach" on PostgreSQL: the smallest reasonable Fastify 5 + pg implementation of list and get,
// with the service's pool size, no logging, no metrics and no hooks beyond the bearer check; each request
// checks a connection out of the pool and sends its query, as pg's documentation shows. It is what the
// service's PostgreSQL path is compared against ("list ≥ 1.5 × the reference").
// Started by bench/run.ts on the seeded schema; prints `listening PORT` and exits when its parent goes away.
import Fastify from 'fastify'
import pg from 'pg'

const key = process.env.BENCH_API_KEY
const url = process.env.BENCH_DATABASE_URL
const poolSize = Number(process.env.BENCH_POOL_SIZE)
if (!key || !url || !Number.isSafeInteger(poolSize))
  throw new Error('BENCH_API_KEY, BENCH_DATABASE_URL and BENCH_POOL_SIZE are required')
const expected = `Bearer ${key}`

const pool = new pg.Pool({ connectionString: url, max: poolSize })

interface Row {
  id: string
  name: string
  category_id: string
  status: string
}
// bigint columns arrive as text from pg.
const toPet = (row: Row) => ({
  id: Number(row.id),
  name: row.name,
  categoryId: Number(row.category_id),
  status: row.status,
})

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
const notFound = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
} as const

const app = Fastify({ logger: false })
app.addHook('onRequest', async (request, reply) => {
  if (request.headers.authorization !== expected)
    return reply.code(401).send({ code: 'unauthorized', message: 'An API key is required.', status: 401 })
})
// The service's own list query: one row more than the page, to know whether there is a next page.
app.get('/v1/pets', { schema: { response: { 200: { type: 'array', items: pet } } } }, async () => {
  const { rows } = await pool.query<Row>('select * from pets order by id limit $1', [21])
  return rows.slice(0, 20).map(toPet)
})
app.get<{ Params: { id: number } }>(
  '/v1/pets/:id',
  {
    schema: {
      params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
      response: { 200: pet, 404: notFound },
    },
  },
  async (request, reply) => {
    const { rows } = await pool.query<Row>('select * from pets where id = $1', [request.params.id])
    const row = rows[0]
    return row ? toPet(row) : reply.code(404).send({ code: 'not_found', message: 'No such pet.', status: 404 })
  },
)

const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${new URL(address).port}\n`)

process.stdin.resume()
process.stdin.on('end', () => {
  void pool.end()
  process.exit(0)
})
