// sslmode=prefer, libpq's default: TLS where the server offers it, a plain connection where it does not. The driver
// alone refuses a server without TLS; the service asks the server once and connects without TLS where it refuses.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { connectionUrl, prefersTls, withoutTls } from '../../src/db/postgres-tls-preference.js'
import { runCli } from '../helpers/process.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

const newClient = (url: string) => new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })

describe('sslmode in DATABASE_URL', () => {
  it('prefer is read from the query, in both of the driver’s URL forms, the last sslmode as the driver does', () => {
    const none = {}
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?sslmode=prefer', none), true)
    assert.equal(prefersTls('postgres://petstore@/shop?host=/var/run/postgresql&sslmode=prefer', none), true)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?sslmode=require', none), false)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?sslmode=verify-full', none), false)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop', none), false)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?application_name=prefer', none), false)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?sslmode=prefer&sslmode=require', none), false)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?sslmode=require&sslmode=prefer', none), true)
  })

  it('PGSSLMODE=prefer counts where the URL names no sslmode, as the driver reads it', () => {
    const preferring = { PGSSLMODE: 'prefer' }
    assert.equal(prefersTls('postgres://petstore@db.internal/shop', preferring), true)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop?sslmode=require', preferring), false)
    assert.equal(prefersTls('postgres://petstore@db.internal/shop', { PGSSLMODE: 'require' }), false)
  })

  it('the URL without TLS: sslmode=disable at the end of the query, before any fragment', () => {
    assert.equal(withoutTls('postgres://petstore@h/shop'), 'postgres://petstore@h/shop?sslmode=disable')
    assert.equal(
      withoutTls('postgres://petstore@h/shop?sslmode=prefer#note'),
      'postgres://petstore@h/shop?sslmode=prefer&sslmode=disable#note',
    )
    assert.equal(
      new pg.Client({ connectionString: withoutTls('postgres://petstore@h/shop?sslmode=prefer#n') }).ssl,
      false,
    )
  })

  it('the URL without TLS asks the driver for none and keeps the others', () => {
    const url =
      'postgres://petstore:secret@db.internal:6432/shop?sslmode=prefer&application_name=shop&options=-c%20x%3D1'
    assert.equal(withoutTls(url), `${url}&sslmode=disable`)
    // As the driver reads it (a client is not connected by its constructor).
    const read = new pg.Client({ connectionString: withoutTls(url) })
    assert.deepEqual(
      {
        ssl: read.ssl,
        host: read.host,
        port: read.port,
        user: read.user,
        password: read.password,
        database: read.database,
      },
      { ssl: false, host: 'db.internal', port: 6432, user: 'petstore', password: 'secret', database: 'shop' },
    )
  })
})

/** A loopback server that counts its connections and answers each as `answer` says. */
async function fakeServer(
  answer: (socket: Socket) => void,
): Promise<{ server: Server; url: (query: string) => string; connections: () => number }> {
  let connections = 0
  const server = createServer((socket) => {
    connections += 1
    socket.on('error', () => undefined)
    answer(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    server,
    url: (query) => `postgres://petstore@127.0.0.1:${port}/petstore${query}`,
    connections: () => connections,
  }
}

describe('asking the server whether it offers TLS', () => {
  it('a server that refuses TLS: the URL without TLS, after one connection, and a warning', async () => {
    // Answers PostgreSQL's SSLRequest with 'N', as a server without TLS does.
    const fake = await fakeServer((socket) => socket.once('data', () => socket.end('N')))
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const url = fake.url('?sslmode=prefer')
      assert.equal(await connectionUrl(url, newClient), `${url}&sslmode=disable`)
      assert.equal(fake.connections(), 1)
      await new Promise((resolve) => setImmediate(resolve))
      assert.deepEqual(
        warnings
          .filter((warning) => (warning as Error & { code?: string }).code === 'PETSTORE_POSTGRES_WITHOUT_TLS')
          .map((warning) => warning.message),
        [
          'The PostgreSQL server offers no TLS: connecting without it, as sslmode=prefer allows. Set ' +
            'sslmode=verify-full in DATABASE_URL to refuse a connection that is not encrypted.',
        ],
      )
    } finally {
      process.off('warning', onWarning)
      fake.server.close()
    }
  })

  // Neither is a refusal of TLS: one says yes to TLS and then ends the connection, the other closes at once.
  for (const [title, answer] of [
    [
      'a server that offers TLS: the URL as it is, whatever the handshake then meets',
      (socket: Socket) => socket.once('data', () => socket.end('S')),
    ],
    [
      'a server that cannot be asked (it closes at once): the URL as it is, for the connection to report',
      (socket: Socket) => socket.destroy(),
    ],
  ] as const) {
    it(title, async () => {
      const fake = await fakeServer(answer)
      try {
        const url = fake.url('?sslmode=prefer')
        assert.equal(await connectionUrl(url, newClient), url)
        assert.equal(fake.connections(), 1)
      } finally {
        fake.server.close()
      }
    })
  }

  it('any other sslmode, or none: the URL as it is, and the server is not asked', async () => {
    const fake = await fakeServer((socket) => socket.once('data', () => socket.end('N')))
    try {
      for (const query of ['', '?sslmode=require', '?sslmode=verify-full', '?sslmode=disable']) {
        assert.equal(await connectionUrl(fake.url(query), newClient), fake.url(query))
      }
      assert.equal(fake.connections(), 0)
    } finally {
      fake.server.close()
    }
  })
})

const serverUrl = process.env.TEST_DATABASE_URL
describe('sslmode=prefer on a PostgreSQL server without TLS', { skip: !serverUrl && 'needs TEST_DATABASE_URL' }, () => {
  let serverOffersTls = true
  let database: TestDatabase
  let server: TestServer | undefined
  const preferring = () => `${database.url}&sslmode=prefer`

  before(async () => {
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    serverOffersTls = (await admin.query<{ ssl: string }>('show ssl')).rows[0]?.ssl === 'on'
    await admin.end()
    database = await createTestDatabase('postgres')
  })
  after(async () => {
    await server?.close()
    await database.drop()
  })

  it('the service serves, its connections plain', async (t) => {
    if (serverOffersTls) return t.skip('the test server offers TLS')
    server = await startTestServer({ database: { url: preferring(), drop: async () => {} } })
    const created = await server.request('/v1/pets', { json: { name: 'Rex', categoryId: 1 } })
    assert.equal(created.status, 201)
    const pet = (await created.json()) as { id: number; name: string }
    const read = await server.request(`/v1/pets/${pet.id}`)
    assert.equal(read.status, 200)
    assert.deepEqual(await read.json(), pet)
    const ready = await server.request('/readyz', { auth: false })
    assert.deepEqual({ status: ready.status, body: await ready.json() }, { status: 200, body: { status: 'ready' } })
  })

  it('petstore migrate and petstore export connect without TLS too', async (t) => {
    if (serverOffersTls) return t.skip('the test server offers TLS')
    const own = await createTestDatabase('postgres')
    try {
      const url = `${own.url}&sslmode=prefer`
      const migrated = await runCli(['migrate'], { DATABASE_URL: url })
      assert.equal(migrated.code, 0, migrated.stderr)
      const file = join(makeTempDir(), 'shop.jsonl')
      const exported = await runCli(['export', file], { DATABASE_URL: url })
      assert.equal(exported.code, 0, exported.stderr)
      const last = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>
      assert.equal(last.end, true)
      assert.match(exported.stderr, /The PostgreSQL server offers no TLS: connecting without it/)
    } finally {
      await own.drop()
    }
  })
})
