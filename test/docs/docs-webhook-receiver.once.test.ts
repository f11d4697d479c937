// The webhook receiver of docs/webhooks.md (the ```ts block after `<!-- webhook-receiver -->`) is run as written,
// against a real server: it prints each event once, ignores a repeat of it (the same webhook-id), and refuses
// a request that is not signed with its secret. So the example cannot drift from the service.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { freePort } from '../helpers/process.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { deliveriesWhen, LOOPBACK_WEBHOOKS, QUICK_WEBHOOKS, registerWebhook } from '../helpers/webhooks.js'

const TSX = import.meta.resolve('tsx')
const PAGE = 'docs/webhooks.md'

function receiverSource(markdown: string): string {
  const source = /^<!-- webhook-receiver -->\n```ts\n([\s\S]*?)^```$/m.exec(markdown)?.[1]
  assert.ok(source, `${PAGE} has a \`\`\`ts block after <!-- webhook-receiver -->`)
  return source
}

describe(`the webhook receiver of ${PAGE}`, () => {
  let server: TestServer
  let receiver: ChildProcess
  let directory: string
  let output = ''
  let port = 0
  let webhook: Awaited<ReturnType<typeof registerWebhook>>

  before(async () => {
    server = await startTestServer({ env: LOOPBACK_WEBHOOKS, tuning: QUICK_WEBHOOKS })
    // Beside node_modules, so that its import of standardwebhooks resolves as in the reader's project.
    const cache = join(process.cwd(), 'node_modules', '.cache')
    mkdirSync(cache, { recursive: true })
    directory = mkdtempSync(join(cache, 'docs-receiver-'))
    writeFileSync(join(directory, 'receiver.ts'), receiverSource(readFileSync(PAGE, 'utf8')))
    port = await freePort()
    webhook = await registerWebhook(server, undefined, { url: `http://127.0.0.1:${port}/`, types: ['pet.created'] })
    receiver = spawn(process.execPath, ['--import', TSX, join(directory, 'receiver.ts')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: webhook.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    receiver.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    for (;;) {
      try {
        await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })
        break
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  })
  after(async () => {
    receiver?.kill()
    await server?.close()
    rmSync(directory, { recursive: true, force: true })
  })

  it('prints each event once, a repeat included, and refuses what is not signed with its secret', async () => {
    const created = await server.request('/v1/pets', { json: { name: 'Hooked', categoryId: 2 } })
    assert.equal(created.status, 201)
    const pet = (await created.json()) as { id: number }
    const [delivery] = await deliveriesWhen(server, webhook.id, (deliveries) => deliveries[0]?.status === 'succeeded')
    assert.ok(delivery)
    const line =
      `pet.created ${delivery.eventId} ` +
      `${JSON.stringify({ pet: { id: pet.id, name: 'Hooked', categoryId: 2, status: 'available' } })}\n`
    assert.equal(output, line)

    // Sent again under the same webhook-id: answered 2xx, printed no second time.
    assert.equal(
      (await server.request(`/v1/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, { method: 'POST' })).status,
      202,
    )
    await deliveriesWhen(server, webhook.id, (deliveries) => deliveries[0]?.attempts.length === 2)
    const [again] = await deliveriesWhen(server, webhook.id, (deliveries) => deliveries[0]?.status === 'succeeded')
    assert.deepEqual(
      again?.attempts.map((attempt) => [attempt.outcome, attempt.responseStatus]),
      [
        ['succeeded', 204],
        ['succeeded', 204],
      ],
    )
    assert.equal(output, line)

    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{"id":1}',
    })
    assert.equal(forged.status, 400)
    assert.equal(output, line)
  })
})
