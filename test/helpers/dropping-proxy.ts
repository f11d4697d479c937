// An HTTP proxy in front of the service that can lose a response: it forwards the request, lets the service
// finish it, and then closes the client's connection instead of answering. The client cannot tell whether the
// request was done, which is what makes retrying an unsafe call dangerous without an Idempotency-Key.
import { createServer, type IncomingMessage, type Server } from 'node:http'

export interface SeenRequest {
  method: string
  url: string
  idempotencyKey: string | undefined
  /** The service's status, or undefined when the proxy never asked it (it was closed). */
  status: number | undefined
  dropped: boolean
}

export interface DroppingProxy {
  /** The proxy's base URL, to use instead of the service's. */
  baseUrl: string
  /** Every request that reached the proxy, in order. */
  seen: SeenRequest[]
  /** The next request this predicate accepts is forwarded and done, and its response is lost. */
  dropNextResponse(which: (request: IncomingMessage) => boolean): void
  close(): Promise<void>
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export async function startDroppingProxy(upstream: string): Promise<DroppingProxy> {
  const seen: SeenRequest[] = []
  let dropWhen: ((request: IncomingMessage) => boolean) | undefined
  const server: Server = createServer((request, response) => {
    void (async () => {
      const drop = dropWhen?.(request) === true
      if (drop) dropWhen = undefined
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) {
        if (name === 'host' || name === 'connection' || value === undefined) continue
        headers.set(name, Array.isArray(value) ? value.join(', ') : value)
      }
      const body = await bodyOf(request)
      const method = request.method ?? 'GET'
      const entry: SeenRequest = {
        method,
        url: request.url ?? '/',
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
        status: undefined,
        dropped: drop,
      }
      seen.push(entry)
      const answer = await fetch(upstream + entry.url, { method, headers, ...(body.length > 0 ? { body } : {}) })
      const answerBody = Buffer.from(await answer.arrayBuffer())
      entry.status = answer.status
      if (drop) {
        request.socket.destroy()
        return
      }
      const answerHeaders: Record<string, string> = {}
      answer.headers.forEach((value, name) => {
        if (
          name !== 'content-encoding' &&
          name !== 'transfer-encoding' &&
          name !== 'connection' &&
          name !== 'keep-alive'
        )
          answerHeaders[name] = value
      })
      response.writeHead(answer.status, { ...answerHeaders, 'content-length': String(answerBody.length) })
      response.end(answerBody)
    })().catch(() => request.socket.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address')
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    seen,
    dropNextResponse(which) {
      dropWhen = which
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
