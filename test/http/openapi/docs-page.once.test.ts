// The interactive reference at /docs, opened in a real headless Chromium: it must render every operation
// from the served document, with the beta ones visibly marked, using only the service's own files (no CDN, no
// validator, no telemetry).
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, missingChromium } from '../../helpers/chromium.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../../helpers/server.js'

const missing = missingChromium('/docs')
// The first screen of a laptop, and where its screenshot is kept for a reader to look at (docs/testing.md).
const SCREEN = { width: 1280, height: 800 }
const SCREENSHOT = process.env.PETSTORE_DOCS_SCREENSHOT ?? join(tmpdir(), 'petstore-docs-page.png')

interface RenderedOperation {
  method: string
  path: string | null
  operationId: string
  summary: string
  deprecated: boolean
}

describe('GET /docs in a browser', { skip: missing ?? false }, () => {
  let server: TestServer
  let browser: Browser
  let page: Page
  const requests: string[] = []
  const consoleErrors: string[] = []
  let pageHeaders: Record<string, string> = {}

  before(async () => {
    server = await startTestServer({
      env: {
        PRODUCTION_BASE_URL: 'https://petstore.example.com/v1',
        STAGING_BASE_URL: 'https://staging.petstore.example.com/v1',
      },
    })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
    page.on('request', (request) => requests.push(request.url()))
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`))
    page.on('requestfailed', (request) =>
      consoleErrors.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`),
    )
    const response = await page.goto(`${server.baseUrl}/docs`, { waitUntil: 'networkidle' })
    assert.equal(response?.status(), 200)
    pageHeaders = (await response?.allHeaders()) ?? {}
    await page.waitForSelector('.opblock', { timeout: 30_000 })
  })

  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('shows the API title, version and every operation with its operationId, tag by tag, the beta ones \
marked [beta]', async () => {
    assert.equal((await page.textContent('.info .title'))?.replace(/\s+/g, ' ').trim(), 'Petstore API 1.1.0 OAS 3.1')
    const operations = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => ({
        method: block.querySelector('.opblock-summary-method')?.textContent ?? '',
        path: block.querySelector('[data-path]')?.getAttribute('data-path') ?? null,
        operationId: block.querySelector('.opblock-summary-operation-id')?.textContent ?? '',
        summary: block.querySelector('.opblock-summary-description')?.textContent ?? '',
        deprecated: block.classList.contains('opblock-deprecated'),
      })),
    )
    assert.deepEqual(operations, [
      { method: 'GET', path: '/pets', operationId: 'listPets', summary: 'List all animals', deprecated: false },
      { method: 'POST', path: '/pets', operationId: 'createPet', summary: 'Add an animal', deprecated: false },
      {
        method: 'GET',
        path: '/pets/{petId}',
        operationId: 'getPet',
        summary: 'Get an animal (deprecated)',
        deprecated: true,
      },
      {
        method: 'PATCH',
        path: '/pets/{petId}',
        operationId: 'updatePet',
        summary: '[beta] Update an animal',
        deprecated: false,
      },
      {
        method: 'DELETE',
        path: '/pets/{petId}',
        operationId: 'deletePet',
        summary: '[beta] Delete an animal',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/categories',
        operationId: 'listCategories',
        summary: '[beta] List categories',
        deprecated: false,
      },
      {
        method: 'POST',
        path: '/categories',
        operationId: 'createCategory',
        summary: '[beta] Add a category',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/categories/{categoryId}',
        operationId: 'getCategory',
        summary: '[beta] Get a category',
        deprecated: false,
      },
      {
        method: 'PUT',
        path: '/categories/{categoryId}',
        operationId: 'putCategory',
        summary: '[beta] Create or rename a category',
        deprecated: false,
      },
      {
        method: 'DELETE',
        path: '/categories/{categoryId}',
        operationId: 'deleteCategory',
        summary: '[beta] Delete a category',
        deprecated: false,
      },
      { method: 'GET', path: '/store/orders', operationId: 'listOrders', summary: 'List orders', deprecated: false },
      {
        method: 'POST',
        path: '/store/orders',
        operationId: 'placeOrder',
        summary: '[beta] Place an order for an animal',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/store/orders/{orderId}',
        operationId: 'getOrder',
        summary: '[beta] Get an order',
        deprecated: false,
      },
      {
        method: 'DELETE',
        path: '/store/orders/{orderId}',
        operationId: 'cancelOrder',
        summary: '[beta] Cancel an order',
        deprecated: false,
      },
      {
        method: 'POST',
        path: '/store/orders/{orderId}/complete',
        operationId: 'completeOrder',
        summary: '[beta] Complete an order',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/events',
        operationId: 'listEvents',
        summary: '[beta] List events (feed, long poll)',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/events/stream',
        operationId: 'streamEvents',
        summary: '[beta] Stream events (Server-Sent Events)',
        deprecated: false,
      },
      {
        method: 'POST',
        path: '/webhooks',
        operationId: 'createWebhook',
        summary: '[beta] Register a webhook endpoint',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/webhooks',
        operationId: 'listWebhooks',
        summary: '[beta] List webhook endpoints',
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/webhooks/{webhookId}',
        operationId: 'getWebhook',
        summary: '[beta] Get a webhook endpoint',
        deprecated: false,
      },
      {
        method: 'PATCH',
        path: '/webhooks/{webhookId}',
        operationId: 'updateWebhook',
        summary: '[beta] Change a webhook endpoint',
        deprecated: false,
      },
      {
        method: 'DELETE',
        path: '/webhooks/{webhookId}',
        operationId: 'deleteWebhook',
        summary: '[beta] Delete a webhook endpoint',
        deprecated: false,
      },
      {
        method: 'POST',
        path: '/webhooks/{webhookId}/rotate-secret',
        operationId: 'rotateWebhookSecret',
        summary: "[beta] Rotate a webhook endpoint's secret",
        deprecated: false,
      },
      {
        method: 'GET',
        path: '/webhooks/{webhookId}/deliveries',
        operationId: 'listWebhookDeliveries',
        summary: "[beta] List an endpoint's deliveries",
        deprecated: false,
      },
      {
        method: 'POST',
        path: '/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
        operationId: 'retryWebhookDelivery',
        summary: '[beta] Retry a delivery now',
        deprecated: false,
      },
      // The document's `webhooks` section: what a registered endpoint receives.
      {
        method: 'POST',
        path: 'event',
        operationId: 'receiveEvent',
        summary: '[beta] An event, delivered to a registered endpoint',
        deprecated: false,
      },
    ] satisfies RenderedOperation[])
    // Deprecated operations are drawn with their path struck through.
    assert.equal(await page.locator('.opblock-deprecated .opblock-summary-path__deprecated').count(), 1)
  })

  it('shows the beta note and the state machine when a beta operation is opened', async () => {
    const block = page.locator('#operations-Store-placeOrder')
    await block.locator('.opblock-summary-control').click()
    const description = block.locator('.opblock-description-wrapper').first()
    await description.waitFor({ timeout: 10_000 })
    const text = (await description.textContent())?.replace(/\s+/g, ' ') ?? ''
    assert.match(text, /^Beta: this operation may still change in a backwards-incompatible way\./)
    assert.match(text, /Orders an available animal and makes it pending, in one transaction\./)
    assert.match(text, /Any other transition answers 409 conflict and changes nothing\./)
    assert.equal(await description.locator('strong', { hasText: 'Beta:' }).count(), 1)
  })

  it('offers production and staging, then this instance, as servers', async () => {
    const servers = await page.$$eval('.servers select option', (options) =>
      options.map((option) => option.getAttribute('value')),
    )
    assert.deepEqual(servers, [
      'https://petstore.example.com/v1',
      'https://staging.petstore.example.com/v1',
      `${server.baseUrl}/v1`,
    ])
  })

  it('requested nothing from any host but the service itself', () => {
    assert.ok(requests.includes(`${server.baseUrl}/docs`), 'the page itself was recorded')
    assert.ok(requests.includes(`${server.baseUrl}/docs/json`), 'the document was loaded from the service')
    const elsewhere = requests.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== server.baseUrl)
    assert.deepEqual(elsewhere, [])
  })

  it('links to no other site: every link stays on the service (the licence is named, not linked)', async () => {
    const links = await page.$$eval('a[href]', (anchors) => anchors.map((anchor) => anchor.href))
    assert.ok(links.length > 0, 'the page has links (its operations)')
    assert.deepEqual(
      links.filter((href) => new URL(href).origin !== server.baseUrl),
      [],
    )
    assert.equal(await page.locator('.info__license').textContent(), 'MIT')
  })

  it('renders under its Content-Security-Policy, which no part of the page violated', () => {
    // Chromium reports every blocked script, style, image or connection as a console error (checked below).
    assert.match(
      pageHeaders['content-security-policy'] ?? '',
      new RegExp(
        /^default-src 'none'; script-src 'self'; style-src 'self' 'sha256-[A-Za-z0-9+/]+={0,2}'; /.source +
          /.*frame-ancestors 'none'$/.source,
      ),
    )
    assert.equal(pageHeaders['x-frame-options'], 'DENY')
  })

  it('is titled after the API, shows no framework logo, and keeps the introduction in collapsed sections', async () => {
    assert.equal(await page.title(), 'Petstore API')
    assert.equal(await page.locator('.topbar').count(), 0)
    assert.deepEqual(
      requests.filter((url) => /logo|favicon-(16|32)x/.test(url)),
      [],
      'no framework logo or icon was loaded',
    )
    const introduction = page.locator('.info .description details')
    assert.equal(await introduction.getAttribute('open'), null, 'collapsed at first')
    await introduction.locator('summary').click()
    const topics = await introduction.locator('h4').allTextContents()
    assert.ok(topics.includes('Authentication') && topics.includes('Errors'), topics.join(', '))
  })

  it('shows the first operation on the first screen (1280 × 800), once the document has loaded', async () => {
    const screen = await browser.newPage({ viewport: SCREEN })
    try {
      await screen.goto(`${server.baseUrl}/docs`)
      // The first operation, not a loading spinner: the screenshot shows the rendered document.
      const first = screen.locator('.opblock').first()
      await first.waitFor({ timeout: 30_000 })
      assert.equal(await first.getAttribute('id'), 'operations-Pets-listPets')
      const box = await first.locator('.opblock-summary').boundingBox()
      assert.ok(box && box.y >= 0 && box.y + box.height <= SCREEN.height, `first operation at ${JSON.stringify(box)}`)
      const shot = await screen.screenshot({ path: SCREENSHOT })
      // A PNG of exactly the first screen (its IHDR holds width and height).
      assert.deepEqual([shot.readUInt32BE(16), shot.readUInt32BE(20)], [SCREEN.width, SCREEN.height])
    } finally {
      await screen.close()
    }
  })

  it('tries an operation out sending the examples of required parameters only, no optional one unasked', async () => {
    // The page's own tab, on this instance's server entry; nothing may leave for the documented servers.
    const tab = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
    const sent: { method: string; url: string; headers: Record<string, string> }[] = []
    await tab.route('**/*', (route) =>
      new URL(route.request().url()).origin === server.baseUrl ? route.continue() : route.abort(),
    )
    tab.on('request', (request) => {
      if (request.url().startsWith(`${server.baseUrl}/v1/`))
        sent.push({ method: request.method(), url: request.url(), headers: request.headers() })
    })
    try {
      await tab.goto(`${server.baseUrl}/docs`)
      await tab.locator('.opblock').first().waitFor({ timeout: 30_000 })
      await tab.selectOption('.servers select', `${server.baseUrl}/v1`)
      await tab.click('button.authorize')
      await tab.fill('.modal-ux input', TEST_API_KEY)
      await tab.click('.modal-ux button.authorize')
      await tab.click('.modal-ux button.close-modal')
      const execute = async (operation: string) => {
        const block = tab.locator(`#operations-${operation}`)
        await block.locator('.opblock-summary-control').click()
        await block.locator('button.try-out__btn').click()
        await block.locator('button.execute').click()
        const status = block.locator('.live-responses-table .response .response-col_status').first()
        await status.waitFor({ timeout: 10_000 })
        const body = await block.locator('.live-responses-table .response-col_description pre').first().innerText()
        return { status: (await status.innerText()).trim(), body: JSON.parse(body) as unknown }
      }
      // Not the example cursor (400), status or categoryId: the first page of every animal (limit is its default).
      assert.deepEqual(await execute('Pets-listPets'), { status: '200', body: [] })
      // The path's example id is kept; the example If-Match and If-None-Match (another version's ETag) are not.
      assert.deepEqual(await execute('Pets-getPet'), {
        status: '404',
        body: { code: 'not_found', message: 'No pet has id 12.', status: 404 },
      })
      assert.deepEqual(
        sent.map(({ method, url, headers }) => ({
          method,
          url,
          conditions: Object.keys(headers).filter((name) => /^(if-|idempotency-key$)/.test(name)),
        })),
        [
          { method: 'GET', url: `${server.baseUrl}/v1/pets?limit=20`, conditions: [] },
          { method: 'GET', url: `${server.baseUrl}/v1/pets/12`, conditions: [] },
        ],
      )
    } finally {
      await tab.close()
    }
  })

  it('logged no console error and no uncaught exception', () => {
    assert.deepEqual(consoleErrors, [])
  })
})
