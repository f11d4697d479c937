// A command that cannot start says, in one line on stderr, which variable or path is at fault and what to do,
// and exits 1: not the words of the library that failed (getaddrinfo ENOTFOUND, unable to open database file).
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { loadConfig } from '../../src/config.js'
import { migrations } from '../../src/db/migrate.js'
import { openStore } from '../../src/db/store.js'
import { migrateUntil } from '../helpers/migrations.js'
import { NobodyTraversal, UNPRIVILEGED } from '../helpers/nobody.js'
import { freePort, runCli } from '../helpers/process.js'
import { makeTempDir } from '../helpers/temp.js'

const TRY_POSTGRES =
  'check that PostgreSQL runs there and that DATABASE_URL names the right host, port, database, user and password'
const ADDRESSES =
  'set HOST to an address of this machine: 127.0.0.1 for local clients only, 0.0.0.0 (or ::) for every interface'

describe('the address to listen on', { concurrency: 2 }, () => {
  it('HOST=256.1.1.1 is refused as HOST, never looked up as a name', async () => {
    const result = await runCli(['serve'], { HOST: '256.1.1.1', DATABASE_URL: 'file::memory:' })
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        'petstore: HOST="256.1.1.1" is not valid: a host name or IP address; as an IPv4 address it needs four ' +
        'numbers from 0 to 255 (127.0.0.1, 0.0.0.0 for every interface)\n',
    })
  })

  it('HOST=0.0.0.0:8080 is refused by every command, as a HOST with a port, never looked up as a name', async () => {
    const stderr =
      'petstore: HOST="0.0.0.0:8080" is not valid: a host name or IP address; without a port (the port is PORT): ' +
      '0.0.0.0 for every interface, or :: for IPv6\n'
    for (const command of [['serve'], ['migrate']]) {
      const result = await runCli(command, { HOST: '0.0.0.0:8080', DATABASE_URL: 'file::memory:' })
      assert.deepEqual(result, { code: 1, stdout: '', stderr }, command.join(' '))
    }
  })

  it('a HOST that is not an address of this machine names HOST and the usual values', async () => {
    // 192.0.2.1 is reserved for documentation (RFC 5737): no machine has it, and binding to it sends nothing.
    const port = await freePort()
    const result = await runCli(['serve'], {
      HOST: '192.0.2.1',
      PORT: String(port),
      DATABASE_URL: 'file::memory:',
      LOG_LEVEL: 'warn',
    })
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr: `petstore: HOST="192.0.2.1" is not an address of this machine (listen EADDRNOTAVAIL); ${ADDRESSES}\n`,
    })
  })

  it('a PORT in use names PORT and a free one to try', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const result = await runCli(['serve'], {
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: 'file::memory:',
        LOG_LEVEL: 'warn',
      })
      assert.deepEqual(result, {
        code: 1,
        stdout: '',
        stderr:
          `petstore: port ${port} on 127.0.0.1 is already in use (listen EADDRINUSE), by another petstore or ` +
          `another program; stop it, or set PORT to a free port (e.g. PORT=${port + 1}, if nothing uses it)\n`,
      })
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  })
})

describe('an unreachable PostgreSQL', { concurrency: 3 }, () => {
  // Accepts connections and closes them at once: what a proxy in front of a stopped database does. pg then
  // reports "Connection terminated unexpectedly", which names neither the address nor the variable.
  let closer: Server
  let closerPort = 0
  const sockets = new Set<Socket>()
  before(async () => {
    closer = createServer((socket) => {
      sockets.add(socket)
      socket.end()
    })
    await new Promise<void>((resolve) => closer.listen(0, '127.0.0.1', resolve))
    closerPort = (closer.address() as { port: number }).port
  })
  after(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => closer.close(resolve))
  })

  // Port 1 on loopback: nothing listens there, so the connection is refused at once.
  const REFUSED = 'postgres://petstore:hunter2hunter2@127.0.0.1:1/petstore'
  for (const command of [['serve'], ['migrate'], ['keys', 'list']]) {
    it(`petstore ${command.join(' ')} with nothing listening: names the database, DATABASE_URL and what to check, \
never the password`, async () => {
      const result = await runCli(command, { DATABASE_URL: REFUSED, LOG_LEVEL: 'warn', PORT: '0' })
      const using = command[0] === 'serve' ? '' : 'petstore: using PostgreSQL database 127.0.0.1:1/petstore\n'
      assert.deepEqual(result, {
        code: 1,
        stdout: '',
        stderr:
          `${using}petstore: cannot connect to PostgreSQL database 127.0.0.1:1/petstore (DATABASE_URL): connect ` +
          `ECONNREFUSED 127.0.0.1:1; ${TRY_POSTGRES}\n`,
      })
      assert.ok(!result.stderr.includes('hunter2'))
    })
  }

  it('petstore serve against something that hangs up: the same, with what happened', async () => {
    const result = await runCli(['serve'], {
      DATABASE_URL: `postgres://petstore@127.0.0.1:${closerPort}/petstore`,
      LOG_LEVEL: 'warn',
      PORT: '0',
    })
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        `petstore: cannot connect to PostgreSQL database 127.0.0.1:${closerPort}/petstore (DATABASE_URL): ` +
        `Connection terminated unexpectedly; ${TRY_POSTGRES}\n`,
    })
  })
})

describe('a data directory the service may not write to', () => {
  const directory = makeTempDir()
  const data = join(directory, 'data')
  const file = join(data, 'petstore.db')
  const user = UNPRIVILEGED
  const traversal = new NobodyTraversal()
  before(() => {
    mkdirSync(data)
    chmodSync(directory, 0o755)
    chmodSync(data, 0o555)
    traversal.open(process.cwd())
    traversal.open(directory)
  })
  after(() => {
    traversal.restore()
    chmodSync(data, 0o755)
    rmSync(directory, { recursive: true, force: true })
  })

  const line =
    `petstore: cannot open the SQLite database ${file} (unable to open database file): the directory ${data} ` +
    'must exist and be writable by this user, ' +
    'since SQLite also creates petstore.db-wal and petstore.db-shm there; fix its permissions, or set ' +
    'DATABASE_URL=file:PATH to a writable place\n'

  it('petstore serve names the file, the directory and the fix', async () => {
    const result = await runCli(['serve'], { DATABASE_URL: `file:${file}`, LOG_LEVEL: 'warn', PORT: '0' }, user)
    assert.deepEqual(result, { code: 1, stdout: '', stderr: line })
    assert.equal(existsSync(file), false)
  })

  it('petstore migrate too, after the line naming the database', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: `file:${file}` }, user)
    assert.deepEqual(result, { code: 1, stdout: '', stderr: `petstore: using SQLite database ${file}\n${line}` })
  })
})

describe('a database path through a file', () => {
  const directory = makeTempDir()
  after(() => rmSync(directory, { recursive: true, force: true }))

  it('petstore migrate names the file that stands where a directory should be', async () => {
    const notADirectory = join(directory, 'notes.txt')
    writeFileSync(notADirectory, 'a file\n')
    const file = join(notADirectory, 'data', 'petstore.db')
    const result = await runCli(['migrate'], { DATABASE_URL: `file:${file}` })
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        `petstore: using SQLite database ${file}\n` +
        `petstore: cannot open the SQLite database ${file}: ${notADirectory} is a file, not a directory; set ` +
        'DATABASE_URL=file:PATH to a path whose directories are directories\n',
    })
  })
})

describe('a database without the schema this petstore needs', () => {
  const MIGRATE_FIRST = 'run petstore migrate first'
  const directory = makeTempDir()
  after(() => rmSync(directory, { recursive: true, force: true }))

  it('petstore serve with MIGRATE_ON_START=false and no database file: refused, and no file is made', async () => {
    const path = join(directory, 'none.db')
    const result = await runCli(['serve'], {
      DATABASE_URL: `file:${path}`,
      MIGRATE_ON_START: 'false',
      PORT: String(await freePort()),
    })
    assert.deepEqual(result, {
      code: 1,
      stdout: '',
      stderr:
        `petstore: no SQLite database at ${path}, and serve with MIGRATE_ON_START=false does not create one: ` +
        'run petstore migrate first\n',
    })
    assert.equal(existsSync(path), false)
  })

  it('one migration behind: serve without migrations on start and the keys commands refuse it, unchanged', async () => {
    const path = join(directory, 'behind.db')
    const store = openStore(loadConfig({ DATABASE_URL: `file:${path}` }))
    const names = Object.keys(migrations)
    const [last = ''] = names.slice(-1)
    try {
      assert.equal((await migrateUntil(store.migrations, names.at(-2) ?? '')).error, undefined)
    } finally {
      await store.close()
    }
    const lacking = `the SQLite database ${path} lacks 1 migration(s) of this petstore (${last}): ${MIGRATE_FIRST}\n`
    const serve = await runCli(['serve'], {
      DATABASE_URL: `file:${path}`,
      MIGRATE_ON_START: 'false',
      PORT: String(await freePort()),
    })
    assert.deepEqual(serve, { code: 1, stdout: '', stderr: `petstore: ${lacking}` })
    const keys = await runCli(['keys', 'list'], { DATABASE_URL: `file:${path}` })
    assert.deepEqual(keys, {
      code: 1,
      stdout: '',
      stderr: `petstore: using SQLite database ${path}\npetstore: ${lacking}`,
    })
    const handle = new SqliteDatabase(path, { readonly: true })
    try {
      assert.equal(
        (handle.prepare('select max(name) as name from kysely_migration').get() as { name: string }).name,
        names.at(-2),
      )
    } finally {
      handle.close()
    }
  })
})

describe('a database in memory', { concurrency: 4 }, () => {
  for (const args of [['keys', 'create', '--name', 'lost'], ['keys', 'list'], ['migrate'], ['import', '-']]) {
    const command = args[0] === 'keys' ? args.slice(0, 2).join(' ') : args[0]
    it(`petstore ${args.join(' ')}: refused, since nothing it does would outlive it`, async () => {
      const result = await runCli(args, { DATABASE_URL: 'sqlite::memory:' })
      assert.deepEqual(result, {
        code: 1,
        stdout: '',
        stderr:
          'petstore: using SQLite database :memory:\n' +
          `petstore: ${command} needs a database that outlives it: set DATABASE_URL to a file or to PostgreSQL\n`,
      })
    })
  }
})
