// The route inventory: the server answers exactly the operations of its OpenAPI document (each path also with a
// 405 for the other methods) plus the documented operational endpoints, nothing else. A route added without
// documenting it, or documented without being served, fails here. Every answer carries the security headers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance, HTTPMethods } from 'fastify'
import { apiPrefix, operationsOf, type OpenApiDocument } from '../helpers/fuzz-document.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

/**
 * Every method a documented API path answers: its operations', and 405 for the rest (HEAD wherever GET is), for
 * every method Fastify's router knows but OPTIONS (CORS).
 */
const API_PATH_METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'QUERY', 'TRACE']

/** The operational endpoints: health, readiness, metrics, the document, the reference. */
const OPERATIONAL_ROUTES = [
  // `/`: a small JSON index pointing at the documentation and the health routes.
  ...['/', '/healthz', '/readyz', '/metrics', '/v1/openapi.json'].flatMap((path) => [`GET ${path}`, `HEAD ${path}`]),
  // /docs: Swagger UI from local files: its page, initialiser, static assets, and the document it renders.
  ...[
    '/docs',
    '/docs/',
    // The folder and its index file redirect to the page.
    '/docs/static/',
    '/docs/static/index.html',
    '/docs/static/swagger-initializer.js',
    '/docs/static/theme/favicon.svg',
    '/docs/static/*',
    '/docs/json',
    '/docs/yaml',
  ].flatMap((path) => [`GET ${path}`, `HEAD ${path}`]),
  // The CORS preflight, for any path.
  'OPTIONS *',
]

/** Every other method of the public paths answers 405 with Allow: GET, HEAD (`/docs/*`: every file under /docs). */
const PUBLIC_REFUSALS = ['/', '/healthz', '/readyz', '/metrics', '/v1/openapi.json', '/docs', '/docs/*'].flatMap(
  (path) =>
    API_PATH_METHODS.filter((method) => method !== 'GET' && method !== 'HEAD').map((method) => `${method} ${path}`),
)

/**
 * Reads Fastify's radix tree (`printRoutes()`) into `METHOD path` entries: a route's path is the concatenation of
 * the node labels down to it. (The `commonPrefix: false` rendering regroups labels and is not exact.)
 */
function routesOf(app: FastifyInstance): string[] {
  const routes: string[] = []
  const stack: string[] = []
  for (const line of app.printRoutes().split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!match) {
      assert.equal(line.trim(), '', `an unreadable line of printRoutes: ${JSON.stringify(line)}`)
      continue
    }
    const depth = (match[1] ?? '').length / 4
    const label = match[2] === '(empty root node)' ? '' : (match[2] ?? '')
    const path = `${depth === 0 ? '' : stack[depth - 1]}${label}`
    stack[depth] = path
    stack.length = depth + 1
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) routes.push(`${method} ${path}`)
  }
  return routes.sort()
}

describe('route inventory', () => {
  let server: TestServer
  let document: OpenApiDocument
  let prefix: string

  before(async () => {
    server = await startTestServer()
    document = (await (await server.request('/v1/openapi.json', { auth: false })).json()) as OpenApiDocument
    prefix = apiPrefix(document)
  })
  after(() => server.close())

  const apiPaths = () => Object.keys(document.paths).map((path) => `${prefix}${path.replace(/\{([^}]+)\}/g, ':$1')}`)
  const concrete = (route: string) => route.replace(/:[^/]+/g, '1')

  async function answer(method: string, url: string, auth = true) {
    const streamed = await server.app.inject({
      method: method as HTTPMethods,
      url,
      headers: auth ? { authorization: `Bearer ${TEST_API_KEY}` } : {},
      payloadAsStream: true,
    })
    // An event stream never ends: its answer is its status and headers. Every other body is read whole.
    let body = ''
    if (String(streamed.headers['content-type']).startsWith('text/event-stream')) streamed.stream().destroy()
    else for await (const chunk of streamed.stream()) body += String(chunk)
    const response = { statusCode: streamed.statusCode, headers: streamed.headers, body }
    assert.equal(response.headers['x-content-type-options'], 'nosniff', `${method} ${url}`)
    assert.equal(response.headers['x-powered-by'], undefined, `${method} ${url}`)
    // Only API responses are no-store; the reference's static assets have their own caching.
    if (url === prefix || url.startsWith(`${prefix}/`))
      assert.equal(response.headers['cache-control'], 'no-store', `${method} ${url}`)
    return response
  }

  it('serves exactly the documented paths (each with every method: its operations and 405) and the operational \
endpoints', () => {
    const routes = routesOf(server.app)
    for (const route of routes) {
      const [method, url] = route.split(' ') as [HTTPMethods, string]
      assert.ok(
        server.app.hasRoute({ method, url: url.startsWith('/') ? url : `/${url}` }),
        `the route tree was read correctly: ${route}`,
      )
    }
    const expected = [
      ...apiPaths().flatMap((path) => API_PATH_METHODS.map((method) => `${method} ${path}`)),
      ...OPERATIONAL_ROUTES,
      ...PUBLIC_REFUSALS,
    ].sort()
    assert.deepEqual(routes, expected)
  })

  it('routes every documented operation to itself and every other method of its path to 405 with Allow', async () => {
    const operations = operationsOf(document)
    for (const path of apiPaths()) {
      const documented = operations
        .filter((operation) => `${prefix}${operation.path.replace(/\{([^}]+)\}/g, ':$1')}` === path)
        .map((operation) => operation.method)
      const allowed = [...documented, ...(documented.includes('GET') ? ['HEAD'] : [])]
      for (const method of API_PATH_METHODS) {
        const response = await answer(method, concrete(path))
        const label = `${method} ${path}: ${response.statusCode} ${response.body}`
        if (allowed.includes(method)) {
          assert.notEqual(response.statusCode, 405, label)
          assert.doesNotMatch(response.body, /No route/, label)
        } else {
          assert.equal(response.statusCode, 405, label)
          assert.deepEqual(String(response.headers.allow).split(', ').sort(), [...allowed].sort(), label)
          if (method !== 'HEAD') assert.equal(JSON.parse(response.body).code, 'method_not_allowed', label)
        }
      }
    }
  })

  it('answers the operational endpoints without a key, and the CORS preflight on every API path', async () => {
    for (const route of OPERATIONAL_ROUTES.filter((entry) => !entry.startsWith('OPTIONS'))) {
      const [method, path] = route.split(' ') as [string, string]
      const url = path === '/docs/static/*' ? '/docs/static/swagger-ui.css' : path
      const response = await answer(method, url, false)
      assert.ok([200, 302].includes(response.statusCode), `${route}: ${response.statusCode}`)
    }
    for (const path of apiPaths()) {
      const response = await server.app.inject({
        method: 'OPTIONS',
        url: concrete(path),
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      })
      assert.equal(response.statusCode, 204, path)
      assert.equal(response.headers['access-control-allow-origin'], '*', path)
      assert.equal(response.headers['x-content-type-options'], 'nosniff', path)
    }
  })

  it('answers everything else with 404 not_found, after authentication under the API prefix', async () => {
    for (const url of [
      '/v1',
      '/v1/',
      '/v1/pets/',
      '/v1/store/orders/',
      '/v1/categories/',
      '/v1/tags',
      '/v2/pets',
      '/admin',
      '/docs.json',
      '/openapi.json',
      '/.env',
    ]) {
      const response = await answer('GET', url)
      assert.equal(response.statusCode, 404, url)
      assert.equal(JSON.parse(response.body).code, 'not_found', url)
    }
    assert.equal((await answer('GET', '/v1/categories', false)).statusCode, 401)
  })
})
