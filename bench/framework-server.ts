// F: plain Fastify (this project's version, logger off) answering the same bytes as L after an onRequest
// bearer check. It is what the framework costs by itself: the service's figures are also read as ratios to it.
// With BENCH_SERVICE_HEADERS=1 it is F′: the same, plus the eight headers the service's list sends beside the body
// (a new request id each time, the security, CORS and rate-limit headers, the next page's link), to show what the
// contract's headers alone cost the framework.
// Started by bench/run.ts as its own process; prints `listening PORT` and exits when its parent goes away.
import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import { contractHeaders } from './contract-headers.js'
import { firstPageBody } from './pets-data.js'

const key = process.env.BENCH_API_KEY
if (!key) throw new Error('BENCH_API_KEY is required')
const expected = `Bearer ${key}`
const body = Buffer.from(firstPageBody())
const unauthorized = { code: 'unauthorized', message: 'An API key is required.', status: 401 }

const app = Fastify({ logger: false })
app.addHook('onRequest', async (request, reply) => {
  if (request.headers.authorization !== expected) return reply.code(401).send(unauthorized)
})
const withServiceHeaders = process.env.BENCH_SERVICE_HEADERS === '1'
app.get('/v1/pets', (_request, reply) => {
  if (withServiceHeaders) {
    void reply.headers({
      ...contractHeaders(randomUUID()),
      link: '<http://127.0.0.1/v1/pets?limit=20&cursor=MjAu.zuwNUMAkbDmTMGFb8AmI7Q>; rel="next"',
    })
  }
  void reply.type('application/json; charset=utf-8').send(body)
})

const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening ${new URL(address).port}\n`)

// The parent holds our stdin open: when it ends (the harness exited, even by SIGKILL), so do we.
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
