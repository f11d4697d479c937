// A webhook receiver as an integrator writes one: a real HTTP server on loopback that verifies every delivery
// with the Standard Webhooks reference library (`standardwebhooks`) and records it. What it answers is scripted
// per request; it counts connections, so a test can prove that nothing ever reached it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface ReceivedDelivery {
  webhookId: string
  timestamp: string
  /** The `v1,…` signatures, in the order sent. */
  signatures: string[]
  /** The body exactly as received. */
  body: string
  /** The names of the secrets (see `secrets`) whose verification by the library succeeded. */
  verifiedWith: string[]
  /** The number of this request at the receiver, from 1. */
  number: number
  /** When it arrived (performance.now(), milliseconds). */
  arrivedAt: number
}

/**
 * What to answer: a status (and body), or `hang` (never answer; the connection stays open until closed). With
 * `unfinished`, the status and body are sent but the response never ends.
 */
export type Answer = { status: number; body?: string; headers?: Record<string, string>; unfinished?: true } | 'hang'

export interface ReceiverOptions {
  /** What to answer the n-th request (from 1); 204 when absent. */
  answer?: (delivery: ReceivedDelivery) => Answer
  /** Milliseconds to wait before answering each request. */
  delayMs?: number
  /** Answers are held until this settles (requests are recorded at once). */
  hold?: Promise<unknown>
}

export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = []
  /** Named secrets to verify with; a test sets them once it knows them (from the 201 or a rotation). */
  readonly secrets = new Map<string, string>()
  connections = 0
  /** Requests whose answer is still pending (hanging or delayed). */
  open = 0
  /** Requests whose connection closed before they were answered (the sender gave up, or died). */
  abandoned: ReceivedDelivery[] = []
  readonly #server: Server
  readonly #sockets = new Set<Socket>()
  readonly #options: ReceiverOptions
  #waiters: (() => void)[] = []

  private constructor(options: ReceiverOptions) {
    this.#options = options
    this.#server = createServer((request, response) => void this.#handle(request, response))
    this.#server.on('connection', (socket) => {
      this.connections++
      this.#sockets.add(socket)
      socket.once('close', () => this.#sockets.delete(socket))
    })
  }

  static async start(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(options)
    await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve))
    return receiver
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/petstore`
  }

  /** Resolves once `condition` holds (checked after each delivery); the test's time-out bounds the wait. */
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise<void>((resolve) => this.#waiters.push(resolve))
  }

  /** The distinct webhook-ids received. */
  ids(): Set<string> {
    return new Set(this.received.map((delivery) => delivery.webhookId))
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy()
    await new Promise((resolve) => this.#server.close(resolve))
  }

  #notify(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const wake of waiters) wake()
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const header = (name: string) => String(request.headers[name] ?? '')
    const headers = {
      'webhook-id': header('webhook-id'),
      'webhook-timestamp': header('webhook-timestamp'),
      'webhook-signature': header('webhook-signature'),
    }
    const verifiedWith = [...this.secrets].flatMap(([name, secret]) => {
      try {
        new Webhook(secret).verify(body, headers)
        return [name]
      } catch {
        return []
      }
    })
    const delivery: ReceivedDelivery = {
      webhookId: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signatures: headers['webhook-signature'].split(' '),
      body,
      verifiedWith,
      number: this.received.length + 1,
      arrivedAt: performance.now(),
    }
    this.received.push(delivery)
    const answer = this.#options.answer?.(delivery) ?? { status: 204 }
    this.open++
    let answered = false
    response.once('close', () => {
      this.open--
      if (!answered) this.abandoned.push(delivery)
      this.#notify()
    })
    this.#notify()
    if (answer === 'hang') return
    await this.#options.hold
    if (this.#options.delayMs) await new Promise((resolve) => setTimeout(resolve, this.#options.delayMs))
    if (response.destroyed) return
    answered = true
    response.writeHead(answer.status, answer.headers)
    if (answer.unfinished) response.write(answer.body ?? '')
    else response.end(answer.body)
  }
}

/** A plain listener that only counts connections (and closes them): what must never be reached. */
export async function connectionCounter(): Promise<{
  port: number
  connections: () => number
  close: () => Promise<void>
}> {
  let connections = 0
  const server = createServer((_request, response) => response.writeHead(200).end('reached'))
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
