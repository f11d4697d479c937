// The limit, L: a bare node:http server that does the least any implementation of "list 20" must do: check
// the bearer header and answer a precomputed 20-pet JSON body. Every service figure is a ratio to it.
// Started by bench/run.ts as its own process; prints `listening PORT` and exits when its parent goes away.
import { createServer } from 'node:http'
import { firstPageBody } from './pets-data.js'

const key = process.env.BENCH_API_KEY
if (!key) throw new Error('BENCH_API_KEY is required')
const expected = `Bearer ${key}`
const body = Buffer.from(firstPageBody())
const unauthorized = Buffer.from(
  JSON.stringify({ code: 'unauthorized', message: 'An API key is required.', status: 401 }),
)

const server = createServer((request, response) => {
  const ok = request.headers.authorization === expected
  response.writeHead(ok ? 200 : 401, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': ok ? body.length : unauthorized.length,
  })
  response.end(ok ? body : unauthorized)
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`)
})

// The parent holds our stdin open: when it ends (the harness exited, even by SIGKILL), so do we.
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
