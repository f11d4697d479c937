// The event stream in a real browser: Chromium's own EventSource, from another origin (CORS), authenticated with
// access_token (an EventSource cannot send Authorization). It receives each event with its id, type and data,
// and when the connection drops it reconnects by itself, sends Last-Event-ID, and gets what it missed, once.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { issueApiKey } from '../../src/keys/issue-key.js'
import { readWholeFeed } from '../helpers/events.js'
import { addPet } from '../helpers/orders.js'
import { launchChromium, missingChromium } from '../helpers/chromium.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

const missing = missingChromium('EventSource')

interface Received {
  id: string
  type: string
  data: unknown
}

// Runs in the page: an EventSource that records every event of every type, and each time it opens.
const LISTEN = `(url) => {
  window.received = []
  window.opened = 0
  const source = new EventSource(url)
  source.onopen = () => { window.opened += 1 }
  const types = ['pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.cancelled', 'order.completed']
  for (const type of types) {
    source.addEventListener(type, (event) =>
      window.received.push({ id: event.lastEventId, type: event.type, data: JSON.parse(event.data) }),
    )
  }
  window.source = source
}`

describe('an EventSource in Chromium', { skip: missing ?? false }, () => {
  let server: TestServer
  let proxy: TcpProxy
  let browser: Browser
  let page: Page
  const consoleErrors: string[] = []

  before(async () => {
    server = await startTestServer()
    const address = new URL(server.baseUrl)
    proxy = await startTcpProxy({ host: address.hostname, port: Number(address.port) })
    browser = await launchChromium()
    page = await browser.newPage()
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`))
    assert.equal((await page.goto(`${server.baseUrl}/healthz`))?.status(), 200)
  })

  after(async () => {
    await browser?.close()
    await proxy?.close()
    await server?.close()
  })

  const received = () => page.evaluate('window.received') as Promise<Received[]>
  const arrived = (count: number) =>
    page.waitForFunction(`window.received.length >= ${count}`, undefined, { timeout: 30_000 })

  it('receives events from another origin with access_token, and resumes after a dropped connection without a gap or a \
repeat', async () => {
    const { key } = await issueApiKey(server.store, 'browser')
    // The proxy's port makes it another origin than the page's: the stream is a cross-origin request.
    await page.evaluate(
      `(${LISTEN})(${JSON.stringify(`http://127.0.0.1:${proxy.port}/v1/events/stream?access_token=${key}`)})`,
    )
    const pet = await addPet(server, 'available', 'Seen')
    const order = await (await server.request('/v1/store/orders', { json: { petId: pet.id } })).json()
    await arrived(3)
    await proxy.cut()
    const missed = [await addPet(server, 'available', 'Missed 1'), await addPet(server, 'available', 'Missed 2')]
    await proxy.restore()
    await arrived(5)
    const later = await addPet(server, 'available', 'Later')
    await arrived(6)

    const feed = await readWholeFeed((path) => server.request(path))
    assert.deepEqual(
      await received(),
      feed.map((event) => ({ id: String(event.id), type: event.type, data: event })),
    )
    assert.deepEqual(
      feed.map((event) => event.data),
      [
        { pet },
        { order },
        { pet: { ...pet, status: 'pending' } },
        ...[...missed, later].map((created) => ({ pet: created })),
      ],
    )
    assert.equal(await page.evaluate('window.opened'), 2, 'it opened, and once more after the connection was dropped')
    assert.deepEqual(consoleErrors, [])
  })
})
