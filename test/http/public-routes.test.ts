// The public routes (the OpenAPI document in JSON and YAML, /docs, /metrics, the index at /): no key needed,
// so they must stay cheap. Each document is built once and served as the same bytes; anonymous traffic to
// them is limited per client address (apart from the API's own anonymous quota); health checks are not.
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { assertError, JSON_CONTENT_TYPE } from '../helpers/error-assert.js'
import { rawExchange } from '../helpers/raw-http.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** A GET with exactly these headers (fetch cannot set Host). */
function get(baseUrl: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${baseUrl}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      )
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end()
  })
}

const DOCUMENTS = [
  { path: '/v1/openapi.json', contentType: JSON_CONTENT_TYPE },
  { path: '/docs/json', contentType: JSON_CONTENT_TYPE },
  { path: '/docs/yaml', contentType: 'application/x-yaml' },
]

const OTHER_SERVERS = [
  { url: 'https://petstore.example.com/v1', description: 'Production', 'x-internal': false },
  { url: 'https://staging.petstore.example.com/v1', description: 'Staging', 'x-internal': false },
]
const SERVERS_ENV = {
  PRODUCTION_BASE_URL: 'https://petstore.example.com/v1',
  STAGING_BASE_URL: 'https://staging.petstore.example.com/v1',
}
const INSTANCE =
  'This instance: the address this document was fetched from, for trying the API out. Clients should use the ' +
  'Production or Staging server.'

describe('the OpenAPI document, prepared once', () => {
  let server: TestServer
  const builds = { object: 0, yaml: 0 }
  before(async () => {
    server = await startTestServer({ env: SERVERS_ENV })
    // Counts how often the document is generated (a call of app.swagger), whoever asks for it.
    const swagger = server.app.swagger.bind(server.app)
    server.app.swagger = ((options?: { yaml?: boolean }) => {
      if (options?.yaml) builds.yaml++
      else builds.object++
      return swagger(options as { yaml: true })
    }) as typeof server.app.swagger
  })
  after(() => server.close())

  it('serves each format as the same bytes for an origin, with that origin last among the servers, and \
builds it once', async () => {
    const port = new URL(server.baseUrl).port
    const origins = [`127.0.0.1:${port}`, `localhost:${port}`, 'docs.example:8443']
    const bodies = new Map<string, Buffer>()
    for (let repetition = 0; repetition < 3; repetition++) {
      for (const host of origins) {
        for (const { path, contentType } of DOCUMENTS) {
          const answer = await get(server.baseUrl, path, { host })
          assert.equal(answer.status, 200, path)
          assert.equal(answer.headers['content-type'], contentType, path)
          assert.equal(answer.headers['content-length'], String(answer.body.length), path)
          const key = `${path} ${host}`
          const first = bodies.get(key)
          if (first) assert.ok(first.equals(answer.body), `${key}: the bytes differ between requests`)
          else bodies.set(key, answer.body)
        }
      }
    }
    assert.deepEqual(builds, { object: 1, yaml: 1 })

    const documents = origins.map((host) => {
      const json = bodies.get(`/v1/openapi.json ${host}`) ?? Buffer.alloc(0)
      assert.ok(
        json.equals(bodies.get(`/docs/json ${host}`) ?? Buffer.alloc(0)),
        'the reference loads the same document',
      )
      const document = JSON.parse(json.toString()) as { servers: unknown; [key: string]: unknown }
      assert.deepEqual(document.servers, [
        ...OTHER_SERVERS,
        { url: `http://${host}/v1`, description: INSTANCE, 'x-internal': true },
      ])
      const yaml = bodies.get(`/docs/yaml ${host}`)?.toString() ?? ''
      // The whole top-level block: the next line is the next top-level key.
      assert.ok(
        yaml.includes(
          `\n${[
            'servers:',
            '  - url: "https://petstore.example.com/v1"',
            '    description: "Production"',
            '    x-internal: false',
            '  - url: "https://staging.petstore.example.com/v1"',
            '    description: "Staging"',
            '    x-internal: false',
            `  - url: "http://${host}/v1"`,
            `    description: ${JSON.stringify(INSTANCE)}`,
            '    x-internal: true',
            'webhooks:',
          ].join('\n')}\n`,
        ),
        'the YAML names this origin last',
      )
      assert.match(yaml, /^openapi: 3\.1\.0\n/)
      return { ...document, servers: undefined }
    })
    // Apart from the servers, one document for every origin.
    assert.deepEqual(documents[1], documents[0])
    assert.deepEqual(documents[2], documents[0])

    const head = await get(server.baseUrl, '/docs/yaml', { host: 'docs.example:8443' }, 'HEAD')
    assert.equal(head.headers['content-length'], String(bodies.get('/docs/yaml docs.example:8443')?.length))
    assert.deepEqual(builds, { object: 1, yaml: 1 })
  })
})

describe('GET /', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('answers a small JSON index of the documentation and health routes', async () => {
    const response = await server.request('/', { auth: false })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), JSON_CONTENT_TYPE)
    assert.deepEqual(await response.json(), {
      name: 'Petstore API',
      version: '1.1.0',
      links: { docs: '/docs', openapi: '/v1/openapi.json', health: '/healthz', ready: '/readyz' },
    })
    for (const path of ['/docs', '/v1/openapi.json', '/healthz', '/readyz']) {
      const linked = await server.request(path, { auth: false })
      assert.equal(linked.status, 200, path)
      await linked.arrayBuffer()
    }
  })

  it('is only at / itself: the asterisk form (GET *), which the router also sends there, is 404', async () => {
    const withQuery = await server.request('/?x=1', { auth: false })
    assert.equal(withQuery.status, 200)
    await withQuery.arrayBuffer()
    const asterisk = await rawExchange(server.baseUrl, 'GET * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    assert.equal(asterisk.status, 404)
    assert.deepEqual(JSON.parse(asterisk.body), { code: 'not_found', message: 'No route GET *.', status: 404 })
  })
})

describe('GET /docs', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: SERVERS_ENV })
  })
  after(() => server.close())

  it('forbids framing and allows only its own scripts and styles', async () => {
    for (const path of ['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
      const response = await server.request(path, { auth: false })
      assert.equal(response.status, 200, path)
      await response.arrayBuffer()
      assert.equal(
        response.headers.get('content-security-policy'),
        "default-src 'none'; script-src 'self'; style-src 'self' " +
          "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; img-src 'self' data:; font-src 'self'; " +
          "connect-src 'self' https://petstore.example.com https://staging.petstore.example.com; base-uri 'none'; " +
          "form-action 'self'; frame-ancestors 'none'",
        path,
      )
      assert.equal(response.headers.get('x-frame-options'), 'DENY', path)
    }
  })

  it('answers 404 for a path under /docs/static that names no file it serves, not 403 forbidden', async () => {
    const long = `/docs/static/${'a'.repeat(300)}`
    for (const [target, named] of [
      ['/docs/static/../../package.json', '/docs/static/../../package.json'],
      ['/docs/static/%00', '/docs/static/\u0000'],
      // A long path is named by its first 200 characters.
      [long, `${long.slice(0, 200)}…`],
    ]) {
      const response = await rawExchange(
        server.baseUrl,
        `GET ${target} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
      )
      assert.equal(response.status, 404, target)
      assert.deepEqual(
        JSON.parse(response.body),
        { code: 'not_found', message: `No route GET ${named}.`, status: 404 },
        target,
      )
    }
  })

  it('ignores Range on its files as everywhere else: the whole file, 200, never 206 or a refusal', async () => {
    const path = '/docs/static/swagger-ui.css'
    const whole = await (await server.request(path, { auth: false })).text()
    for (const range of ['bytes=0-10', 'bytes=99999999-', 'bytes=5-1', 'bytes=abc']) {
      const response = await server.request(path, { auth: false, headers: { range } })
      assert.equal(response.status, 200, range)
      assert.equal(response.headers.get('content-range'), null, range)
      assert.equal(response.headers.get('accept-ranges'), null, range)
      assert.equal(await response.text(), whole, range)
    }
  })
})

describe('GET /docs/static/index.html and its folder', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('redirect to the page, keeping a query, never to themselves', async () => {
    // The file, with and without a query, and the folder.
    const cases: [string, string][] = [
      ['index.html', '/docs/'],
      ['index.html?x=1', '/docs/?x=1'],
      ['index.html?url=/docs/static/index.html', '/docs/?url=/docs/static/index.html'],
      ['', '/docs/'],
      ['?y=2', '/docs/?y=2'],
    ]
    for (const [target, location] of cases) {
      const response = await server.request(`/docs/static/${target}`, { auth: false, redirect: 'manual' })
      assert.equal(response.status, 302, target)
      assert.equal(response.headers.get('location'), location, target)
      await response.arrayBuffer()
      const page = await server.request(location, { auth: false, redirect: 'manual' })
      assert.equal(page.status, 200, location)
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8', location)
      await page.arrayBuffer()
    }
  })
})

describe('public routes under a small anonymous quota', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS: '3', TRUST_PROXY: '127.0.0.1' } })
  })
  after(() => server.close())

  const from = (address: string, headers: Record<string, string> = {}) => ({
    auth: false,
    headers: { ...headers, 'x-forwarded-for': address },
  })
  const PUBLIC_ROUTES = [
    '/',
    '/docs',
    '/docs/static/swagger-ui.css',
    '/docs/json',
    '/docs/yaml',
    '/v1/openapi.json',
    '/metrics',
  ]

  it('answers 429 to an address once it has spent its quota, on every public route', async () => {
    for (const [index, path] of PUBLIC_ROUTES.entries()) {
      const address = `198.51.100.${index + 1}`
      for (let request = 1; request <= 3; request++) {
        const response = await server.request(path, from(address))
        assert.equal(response.status, 200, path)
        await response.arrayBuffer()
        assert.equal(response.headers.get('ratelimit-policy'), '"default";q=3;w=60', path)
        assert.match(response.headers.get('ratelimit') ?? '', new RegExp(`^"default";r=${3 - request};t=\\d+$`), path)
      }
      const refused = await server.request(path, from(address))
      const retryAfter = refused.headers.get('retry-after') ?? ''
      assert.match(retryAfter, /^\d+$/)
      await assertError(
        refused,
        {
          status: 429,
          code: 'rate_limited',
          message: `Too many requests from this address (3 per 60 s); retry in ${retryAfter} s.`,
        },
        { 'ratelimit-policy': '"default";q=3;w=60', ratelimit: `"default";r=0;t=${retryAfter}` },
      )
    }
  })

  it('counts the public routes apart from the API: reading the docs does not cost API calls, nor the \
reverse', async () => {
    const reader = '198.51.100.50'
    for (let request = 0; request < 4; request++) await (await server.request('/docs/json', from(reader))).arrayBuffer()
    assert.equal((await server.request('/docs/json', from(reader))).status, 429)
    const badKey = await server.request('/v1/pets', from(reader, { authorization: 'Bearer not-a-valid-key-0000' }))
    assert.equal(badKey.status, 401)
    assert.equal(badKey.headers.get('ratelimit'), '"default";r=2;t=60')
    assert.equal(
      (await server.request('/v1/pets', from(reader, { authorization: `Bearer ${TEST_API_KEY}` }))).status,
      200,
    )

    const flooder = '198.51.100.51'
    for (let request = 0; request < 4; request++) await (await server.request('/v1/pets', from(flooder))).arrayBuffer()
    assert.equal((await server.request('/v1/pets', from(flooder))).status, 429)
    const docs = await server.request('/docs', from(flooder))
    assert.equal(docs.status, 200)
    assert.equal(docs.headers.get('ratelimit'), '"default";r=2;t=60')
  })

  it('never limits the health checks, even for an address over both quotas', async () => {
    const address = '198.51.100.60'
    for (let request = 0; request < 4; request++) {
      await (await server.request('/metrics', from(address))).arrayBuffer()
      await (await server.request('/v1/pets', from(address))).arrayBuffer()
    }
    for (let request = 0; request < 20; request++) {
      for (const [path, body] of [
        ['/healthz', { status: 'ok' }],
        ['/readyz', { status: 'ready' }],
      ] as const) {
        const response = await server.request(path, from(address))
        assert.equal(response.status, 200, path)
        assert.deepEqual(await response.json(), body)
        assert.equal(response.headers.get('ratelimit'), null)
      }
    }
  })
})
