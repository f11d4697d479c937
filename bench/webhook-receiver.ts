// The healthy receiver of npm run bench:webhooks: answers 204 at once (it verifies nothing: the tests do), and
// keeps, for the first delivery of each event, the time from the event's timestamp (set in the transaction that
// committed it) to its arrival here. GET /stats answers what it kept; POST /reset starts a new measurement.
// Started by bench/webhooks.ts as its own process; prints `listening PORT` and exits when its parent goes away.
import { createServer } from 'node:http'

const seen = new Set<string>()
let latencies: number[] = []
let received = 0
const TIMESTAMP = /"timestamp":"([^"]+)"/

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/stats') {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ received, distinct: seen.size, latencies }))
    return
  }
  if (request.url === '/reset') {
    // Every measurement is on a fresh store, whose event ids (and so webhook-ids) start again at 1.
    seen.clear()
    latencies = []
    received = 0
    response.writeHead(204).end()
    return
  }
  let body = ''
  request.setEncoding('utf8')
  request.on('data', (chunk: string) => (body += chunk))
  request.on('end', () => {
    const arrived = Date.now()
    received++
    const id = String(request.headers['webhook-id'])
    if (!seen.has(id)) {
      seen.add(id)
      const timestamp = TIMESTAMP.exec(body)?.[1]
      if (timestamp) latencies.push(arrived - Date.parse(timestamp))
    }
    response.writeHead(204).end()
  })
})

server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`)
})

// The parent holds our stdin open: when it ends (the harness exited, even by SIGKILL), so do we.
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
