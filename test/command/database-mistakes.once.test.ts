// DATABASE_URL pointing at the wrong thing, as an operator mistypes it: a directory instead of the SQLite file, a
// database petstore never migrated, a PostgreSQL search_path naming a schema that does not exist. Each command
// says what is wrong with that database and what to do, in one line, and exits 1.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { TLSSocket } from 'node:tls'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { cliArguments } from '../helpers/cli-path.js'
import { runCli } from '../helpers/process.js'
import { urlForSchema } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()

/** stderr after the line naming the database. */
const refusal = (stderr: string) => stderr.split('\n').slice(1).join('\n')

/** A SQLite file of another program, holding the tables `schema` makes; its path. */
function foreignFile(name: string, schema: string): string {
  const path = join(directory, name)
  const handle = new SqliteDatabase(path)
  handle.exec(schema)
  handle.close()
  return path
}

describe('a directory as the SQLite database', () => {
  const folder = join(directory, 'data')
  mkdirSync(folder)
  for (const args of [['migrate'], ['keys', 'list'], ['export', join(directory, 'shop.jsonl')]]) {
    it(`petstore ${args[0]} says it is a directory, not that its parent must be writable`, async () => {
      const result = await runCli(args, { DATABASE_URL: `file:${folder}` })
      assert.equal(result.code, 1)
      assert.equal(
        refusal(result.stderr),
        `petstore: ${folder} is a directory, not a SQLite database file; set DATABASE_URL=file:PATH to the ` +
          'database file in it (petstore.db by default)\n',
      )
    })
  }
})

describe('a SQLite path in a directory that cannot be made', () => {
  // procfs answers a new directory with ENOENT although its parent exists, which sent Node's recursive mkdir into
  // an endless loop. Run with a time limit: a hang is a failure, not a test that never ends.
  for (const args of [['migrate'], ['serve']]) {
    it(`petstore ${args[0]} refuses /proc/…/petstore.db at once, naming the directory`, () => {
      const result = spawnSync(process.execPath, cliArguments(args), {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'file:/proc/petstore-test/petstore.db', PORT: '0' },
        encoding: 'utf8',
        timeout: 30_000,
      })
      assert.equal(result.signal, null, 'ended by itself, not by the time limit')
      assert.equal(result.status, 1)
      const database = '/proc/petstore-test/petstore.db'
      assert.ok(
        result.stderr.includes(
          `petstore: cannot open the SQLite database ${database} (ENOENT: no such file or directory, mkdir ` +
            "'/proc/petstore-test'): the directory /proc/petstore-test must exist and be writable by this user",
        ),
        result.stderr,
      )
    })
  }
})

describe('petstore export of a database petstore never migrated', () => {
  it('SQLite (a file of another program): run petstore migrate first, no file written', async () => {
    const foreign = foreignFile('other.db', 'create table notes (body text)')
    const file = join(directory, 'other.jsonl')
    const result = await runCli(['export', file], { DATABASE_URL: `file:${foreign}` })
    assert.equal(result.code, 1)
    assert.equal(
      refusal(result.stderr),
      `petstore: the SQLite database ${foreign} holds no petstore schema: nothing to export ` +
        '(is DATABASE_URL right? a database not migrated yet needs petstore migrate first)\n',
    )
    assert.equal(existsSync(file), false)
  })
})

describe('petstore keys list of a SQLite file of another program', () => {
  it("says it is another program's file, as petstore migrate would, rather than to run petstore migrate", async () => {
    const foreign = foreignFile('ledger.db', 'create table entries (amount integer)')
    const result = await runCli(['keys', 'list'], { DATABASE_URL: `file:${foreign}` })
    assert.equal(result.code, 1)
    assert.equal(
      refusal(result.stderr),
      "petstore: the database holds tables of another program (entries) and none of petstore's: set " +
        "DATABASE_URL to the service's database file, or to a new one\n",
    )
  })
})

describe('petstore migrate of a SQLite file of another program', () => {
  it('refuses it and leaves its tables and its journal mode as they were', async () => {
    const foreign = foreignFile(
      'inventory.db',
      'create table items (id integer primary key, label text); create table notes (body text)',
    )
    const result = await runCli(['migrate'], { DATABASE_URL: `file:${foreign}` })
    assert.equal(result.code, 1)
    assert.equal(
      refusal(result.stderr),
      "petstore: the database holds tables of another program (items, notes) and none of petstore's: set " +
        "DATABASE_URL to the service's database file, or to a new one\n",
    )
    const after = new SqliteDatabase(foreign)
    const tables = after.prepare("select name from sqlite_master where type = 'table' order by name").all()
    const journalMode = after.pragma('journal_mode', { simple: true })
    after.close()
    assert.deepEqual(tables, [{ name: 'items' }, { name: 'notes' }])
    assert.equal(journalMode, 'delete')
    assert.equal(existsSync(`${foreign}-wal`), false)
  })
})

describe('a PostgreSQL server without TLS, with sslmode in DATABASE_URL', () => {
  it('cannot connect, naming the database and DATABASE_URL', async () => {
    // Answers PostgreSQL's SSLRequest with 'N', as a server without TLS does.
    const server = createServer((socket) => socket.once('data', () => socket.end('N')))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      const result = await runCli(['keys', 'list'], {
        DATABASE_URL: `postgres://petstore@127.0.0.1:${port}/petstore?sslmode=verify-full`,
      })
      assert.equal(result.code, 1)
      assert.match(
        refusal(result.stderr),
        new RegExp(
          `^petstore: cannot connect to PostgreSQL database 127\\.0\\.0\\.1:${port}/petstore \\(DATABASE_URL\\): ` +
            'The server does not support SSL connections; check ',
        ),
      )
    } finally {
      server.close()
    }
  })
})

describe('a PostgreSQL server on a Unix socket that is not there', () => {
  const socketDirectory = join(directory, 'no-server')
  for (const url of [
    `postgres://petstore@${encodeURIComponent(socketDirectory)}/shop`,
    `postgres:///shop?host=${socketDirectory}&user=petstore`,
    // libpq's form with a role and no host in the authority: the driver takes it, so the service must too.
    `postgres://petstore@/shop?host=${socketDirectory}`,
  ]) {
    it(`names the socket, not localhost, and says it cannot connect: ${url}`, async () => {
      const result = await runCli(['keys', 'list'], { DATABASE_URL: url })
      assert.equal(result.code, 1)
      const name = `PostgreSQL database shop on the socket ${socketDirectory}/.s.PGSQL.5432`
      assert.equal(
        result.stderr,
        `petstore: using ${name}\n` +
          `petstore: cannot connect to ${name} (DATABASE_URL): connect ENOENT ${socketDirectory}/.s.PGSQL.5432; ` +
          'check that PostgreSQL runs there and that DATABASE_URL names the right host, port, database, user and ' +
          'password\n',
      )
    })
  }
})

/**
 * A throwaway self-signed certificate (P-256, CN untrusted.test) and its key, made for this run by openssl: no
 * authority anyone trusts signed it, and no private key is kept in the repository.
 */
function untrustedCertificate(): { key: string; cert: string } {
  const keyPath = join(directory, 'untrusted.key')
  const certPath = join(directory, 'untrusted.crt')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      '/CN=untrusted.test',
    ].concat(['-days', '1', '-keyout', keyPath, '-out', certPath]),
    { stdio: 'ignore' },
  )
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') }
}

describe('a PostgreSQL server whose TLS certificate is not trusted', () => {
  const untrusted = untrustedCertificate()
  for (const args of [['keys', 'list'], ['serve']]) {
    it(`petstore ${args.join(' ')} cannot connect, naming the database, DATABASE_URL and sslrootcert`, async () => {
      // Answers PostgreSQL's SSLRequest with 'S', then shows a certificate that nobody trusts.
      const server = createServer((socket) => {
        socket.on('error', () => undefined)
        socket.once('data', () => {
          socket.write('S')
          const tls = new TLSSocket(socket, { isServer: true, ...untrusted })
          tls.on('error', () => socket.destroy())
        })
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const { port } = server.address() as AddressInfo
      try {
        const result = await runCli(args, {
          PORT: '0',
          DATABASE_URL: `postgres://petstore@127.0.0.1:${port}/petstore?sslmode=verify-full`,
        })
        // serve names its database once it listens; the other commands first, on a line of their own.
        const stderr = args[0] === 'serve' ? result.stderr : refusal(result.stderr)
        assert.deepEqual(
          { code: result.code, stdout: result.stdout, stderr },
          {
            code: 1,
            stdout: '',
            stderr:
              `petstore: cannot connect to PostgreSQL database 127.0.0.1:${port}/petstore (DATABASE_URL): ` +
              "self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); the server's TLS certificate is not trusted: " +
              'name the certificate of the authority that signed it with sslrootcert=PATH in DATABASE_URL, and ' +
              'check that DATABASE_URL names the host it was issued for\n',
          },
        )
      } finally {
        server.close()
      }
    })
  }
})

const serverUrl = process.env.TEST_DATABASE_URL
describe('PostgreSQL schemas named in DATABASE_URL', { skip: !serverUrl && 'needs TEST_DATABASE_URL' }, () => {
  const schema = `ops_${randomBytes(6).toString('hex')}`
  const missing = `${schema}_missing`
  const admin = () => new pg.Client({ connectionString: serverUrl })
  after(async () => {
    const client = admin()
    await client.connect()
    await client.query(`drop schema if exists ${schema} cascade`)
    await client.end()
  })

  it('the line naming the database names the schema DATABASE_URL selects too', async () => {
    const url = new URL(serverUrl ?? '')
    const result = await runCli(['keys', 'list'], { DATABASE_URL: urlForSchema(serverUrl ?? '', missing) })
    assert.equal(
      result.stderr.split('\n')[0],
      `petstore: using PostgreSQL database ${url.hostname}:${url.port || '5432'}${url.pathname} ` +
        `(search_path ${missing})`,
    )
  })

  it('export of an empty schema: run petstore migrate first', async () => {
    const client = admin()
    await client.connect()
    await client.query(`create schema ${schema}`)
    await client.end()
    const file = join(directory, 'empty-schema.jsonl')
    const result = await runCli(['export', file], { DATABASE_URL: urlForSchema(serverUrl ?? '', schema) })
    assert.equal(result.code, 1)
    assert.match(refusal(result.stderr), /holds no petstore schema: nothing to export/)
    assert.equal(existsSync(file), false)
  })

  const shop = join(directory, 'shop-to-import.jsonl')
  before(async () => {
    const source = `file:${join(directory, 'source.db')}`
    assert.equal((await runCli(['migrate'], { DATABASE_URL: source })).code, 0)
    assert.equal((await runCli(['export', shop], { DATABASE_URL: source })).code, 0)
  })

  for (const args of [['migrate'], ['import', shop]]) {
    it(`petstore ${args[0]} with a search_path naming no existing schema says so`, async () => {
      const result = await runCli(args, { DATABASE_URL: urlForSchema(serverUrl ?? '', missing) })
      assert.equal(result.code, 1)
      assert.match(
        refusal(result.stderr),
        new RegExp(
          `no schema to create tables in: the search_path of DATABASE_URL \\(${missing}\\) names none that ` +
            'exists; create it \\(CREATE SCHEMA\\) or correct DATABASE_URL\n$',
        ),
      )
    })
  }
})
