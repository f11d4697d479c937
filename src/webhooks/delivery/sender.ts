// Who makes the requests of delivery attempts. Signing and HTTP are the costly part of a delivery, so in
// production they run on a thread of their own (sender-thread.ts): the thread serving the API keeps only the
// claims and the records, batched, and a flood of deliveries does not take the API's time. A test that brings
// its own network (a resolver stub, connections led to loopback: functions, which cannot be handed to another
// thread) gets the same code in this thread.
import { Worker } from 'node:worker_threads'
import { Webhook } from 'standardwebhooks'
import { AttemptAbandoned, createOutbound, type OutboundResult, type OutboundSettings } from './outbound-http.js'
import { signatureHeaders } from '../signature.js'

/** One attempt to make: what to send, where, and the secrets (in clear) that sign it. */
export interface SendJob {
  url: string
  eventId: number
  /** The event's JSON. */
  body: string
  current: string
  /** During a rotation's overlap. */
  previous: string | undefined
  /** Epoch milliseconds: the attempt's webhook-timestamp. */
  startedAt: number
}

export interface Sender {
  /** The attempt's outcome; rejects with AttemptAbandoned once `abandon` fires before it ended. */
  send(job: SendJob, abandon: AbortSignal): Promise<OutboundResult>
  /** Ends the thread and closes kept-alive connections; call once no attempt is in progress. */
  close(): Promise<void>
}

export type ThreadSettings = Omit<OutboundSettings, 'network'>

/** Signers made from secrets, kept so that each attempt does not decode its secrets again. */
export class SignerCache {
  static readonly MAX = 1000
  readonly #signers = new Map<string, Webhook>()

  headers(job: SendJob): Record<string, string> {
    const previous = job.previous === undefined ? undefined : this.#signer(job.previous)
    return signatureHeaders(
      job.eventId,
      job.body,
      { current: this.#signer(job.current), previous },
      new Date(job.startedAt),
    )
  }

  #signer(secret: string): Webhook {
    let signer = this.#signers.get(secret)
    if (signer === undefined) {
      if (this.#signers.size >= SignerCache.MAX) this.#signers.clear()
      signer = new Webhook(secret)
      this.#signers.set(secret, signer)
    }
    return signer
  }
}

export function inProcessSender(settings: OutboundSettings): Sender {
  const outbound = createOutbound(settings)
  const signers = new SignerCache()
  return {
    send: (job, abandon) =>
      outbound.post({ url: job.url, headers: signers.headers(job), body: job.body, signal: abandon }),
    async close() {
      outbound.close()
    },
  }
}

/** Messages between the thread serving the API and the sender thread. */
export type ToSender = { kind: 'send'; jobs: (SendJob & { id: number })[] } | { kind: 'abandon'; ids: number[] }
export interface SendOutcome {
  id: number
  result?: OutboundResult
  /** Set when the attempt was given up (abandon), or failed in a way that is not an outcome (a bug). */
  abandoned?: boolean
  /** With `abandoned`: the request had been sent (AttemptAbandoned.sent). */
  sent?: boolean
  error?: string
}

/** The sender thread's module, next to this one: compiled JavaScript, or the TypeScript sources under tsx (tests). */
function startThread(settings: ThreadSettings): Worker {
  const fromSources = import.meta.url.endsWith('.ts')
  const entry = new URL(fromSources ? './sender-thread.ts' : './sender-thread.js', import.meta.url)
  if (!fromSources) return new Worker(entry, { workerData: settings })
  // A thread does not inherit the tsx loader: it registers it before loading the sources.
  const tsx = import.meta.resolve('tsx/esm/api')
  return new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return ` +
      `import(${JSON.stringify(entry.href)}) })`,
    { eval: true, workerData: settings },
  )
}

export function threadSender(settings: ThreadSettings): Sender {
  let worker: Worker | undefined
  let nextId = 1
  let outbox: (SendJob & { id: number })[] = []
  let abandonments: number[] = []
  let postScheduled = false
  const pending = new Map<number, { resolve: (result: OutboundResult) => void; reject: (error: Error) => void }>()

  const failAll = (error: Error) => {
    for (const { reject } of pending.values()) reject(error)
    pending.clear()
  }

  function thread(): Worker {
    if (worker) return worker
    const started = startThread(settings)
    // It must never keep the process alive by itself: the deliverer stops it on shutdown.
    started.unref()
    started.on('message', (outcomes: SendOutcome[]) => {
      for (const outcome of outcomes) {
        const waiting = pending.get(outcome.id)
        pending.delete(outcome.id)
        if (!waiting) continue
        if (outcome.result) waiting.resolve(outcome.result)
        else
          waiting.reject(
            outcome.abandoned
              ? new AttemptAbandoned(outcome.sent === true)
              : new Error(outcome.error ?? 'the sender thread failed'),
          )
      }
    })
    started.on('error', (error) => failAll(error))
    started.on('exit', (code) => {
      if (worker === started) worker = undefined
      failAll(new Error(`the webhook sender thread stopped (exit code ${code})`))
    })
    worker = started
    return started
  }

  /** Jobs and abandonments of one turn go over in one message each. */
  function schedulePost(): void {
    if (postScheduled) return
    postScheduled = true
    setImmediate(() => {
      postScheduled = false
      const target = thread()
      if (outbox.length > 0) target.postMessage({ kind: 'send', jobs: outbox } satisfies ToSender)
      if (abandonments.length > 0) target.postMessage({ kind: 'abandon', ids: abandonments } satisfies ToSender)
      outbox = []
      abandonments = []
    })
  }

  return {
    send(job, abandon) {
      const id = nextId++
      outbox.push({ ...job, id })
      schedulePost()
      abandon.addEventListener(
        'abort',
        () => {
          abandonments.push(id)
          schedulePost()
        },
        { once: true },
      )
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }))
    },
    async close() {
      const stopping = worker
      worker = undefined
      if (stopping) await stopping.terminate()
    },
  }
}
