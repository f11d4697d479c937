// The sender thread (see sender.ts): signs and makes the requests of delivery attempts, and reports their
// outcomes back in batches, one message per turn of its event loop.
import { parentPort, workerData } from 'node:worker_threads'
import { AttemptAbandoned, createOutbound, systemNetwork } from './outbound-http.js'
import { SignerCache, type SendOutcome, type ThreadSettings, type ToSender } from './sender.js'

const port = parentPort
if (!port) throw new Error('sender-thread.ts runs as a worker thread')
const outbound = createOutbound({ ...(workerData as ThreadSettings), network: systemNetwork })
const signers = new SignerCache()
const inProgress = new Map<number, AbortController>()
let outcomes: SendOutcome[] = []

function report(outcome: SendOutcome): void {
  if (outcomes.length === 0) {
    setImmediate(() => {
      port?.postMessage(outcomes)
      outcomes = []
    })
  }
  outcomes.push(outcome)
}

port.on('message', (message: ToSender) => {
  if (message.kind === 'abandon') {
    for (const id of message.ids) inProgress.get(id)?.abort()
    return
  }
  for (const job of message.jobs) {
    const abandon = new AbortController()
    inProgress.set(job.id, abandon)
    let headers: Record<string, string>
    try {
      headers = signers.headers(job)
    } catch (error) {
      inProgress.delete(job.id)
      report({ id: job.id, error: error instanceof Error ? error.message : String(error) })
      continue
    }
    outbound
      .post({ url: job.url, headers, body: job.body, signal: abandon.signal })
      .then(
        (result) => report({ id: job.id, result }),
        (error: unknown) =>
          report({
            id: job.id,
            ...(error instanceof AttemptAbandoned ? { abandoned: true, sent: error.sent } : {}),
            error: String(error),
          }),
      )
      .finally(() => inProgress.delete(job.id))
  }
})
