// The petstore command, run as an operator runs it: a separate process, configured by environment variables,
// in a working directory of its own. Normal output goes to stdout, errors to stderr with a non-zero exit.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { KeyOptionError, parseExpiry, parseScopeList } from '../../src/keys/key-options.js'
import { formatScopes } from '../../src/keys/scopes.js'
import { makeTempDir, startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase } from '../helpers/store.js'
import { runCli } from '../helpers/process.js'
import { cliArguments } from '../helpers/cli-path.js'
import { spawn } from 'node:child_process'
import { CONFIG_VARIABLES } from '../../src/config.js'
import { migrations } from '../../src/db/migrate.js'

const KEY_PATTERN = /^pst_[A-Za-z0-9_-]{43}$/

/** Runs `petstore ARGS` in `cwd` with only PATH and `env` set, and collects what it prints. */
const petstore = (args: string[], { cwd, env = {} }: { cwd: string; env?: Record<string, string> }) =>
  runCli(args, env, { cwd })

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

interface ApiKeyRow {
  id: number
  name: string
  key_hash: string
  key_prefix: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  scopes: string
  expires_at: string | null
}

function readKeys(file: string): ApiKeyRow[] {
  const handle = new SqliteDatabase(file, { readonly: true })
  try {
    return handle.prepare('select * from api_keys order by id').all() as ApiKeyRow[]
  } finally {
    handle.close()
  }
}

/** Every text cell of every table in the file, to prove a secret is stored nowhere. */
function everyStoredText(file: string): string[] {
  const handle = new SqliteDatabase(file, { readonly: true })
  try {
    const tables = handle.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]
    return tables.flatMap(({ name }) =>
      (handle.prepare(`select * from "${name}"`).all() as Record<string, unknown>[]).flatMap((row) =>
        Object.values(row).map(String),
      ),
    )
  } finally {
    handle.close()
  }
}

const ALL_SCOPES = 'pets:read,pets:write,orders:read,orders:write,events:read,webhooks:manage'
const SCOPES_TAKE =
  '--scopes takes a comma-separated list of pets:read, pets:write, orders:read, orders:write, events:read, ' +
  'webhooks:manage'

const SYNOPSIS = `Usage:
  petstore serve                    run the API server
  petstore migrate                  bring the database schema up to date
  petstore keys create --name NAME  create an API key (printed once); options: petstore keys create --help
  petstore keys list                list keys (never the keys themselves)
  petstore keys revoke ID           revoke a key
  petstore webhooks list            list webhook endpoints, with pending and failed deliveries (never secrets)
  petstore webhooks deliveries ID   an endpoint's newest deliveries and their last attempts
  petstore export FILE|-            write the whole shop to a file (mode 0600) or stdout
  petstore import FILE|-            load an exported shop into an empty database
  petstore COMMAND --help           a command's options and the environment variables it reads
  petstore --version                the version
`
/** What follows the error line of a usage error that names no known command. */
const GLOBAL_USAGE = `${SYNOPSIS}Run "petstore --help" for the environment variables.\n`
/** What follows the error line of a usage error of a known command. */
const usageOf = (command: string, usage: string) =>
  `Usage: ${usage}\nRun "petstore ${command} --help" for its options and environment variables.\n`
const KEYS_CREATE_USAGE = usageOf(
  'keys create',
  'petstore keys create --name NAME [--scopes LIST] [--expires-in DURATION | --expires-at DATE-TIME] [--quiet]',
)
const KEYS_REVOKE_USAGE = usageOf('keys revoke', 'petstore keys revoke ID')

/** The first line of migrate and keys: on stderr, so that stdout stays the command's own output. */
const using = (file: string) => `petstore: using SQLite database ${file}\n`

describe('petstore migrate', () => {
  // Every migration the service carries, in the order they run, as `petstore migrate` names them.
  const APPLIED_ALL = `Applied ${Object.keys(migrations).length} migration(s) (${Object.keys(migrations).join(', ')})`
  const directory = realpathSync(makeTempDir())
  after(() => rmSync(directory, { recursive: true, force: true }))

  it('applies every migration to ./data/petstore.db on the first run, and says it is up to date on the \
second', async () => {
    const file = join(directory, 'data', 'petstore.db')
    const first = await petstore(['migrate'], { cwd: directory })
    assert.deepEqual(first, {
      code: 0,
      stdout: `${APPLIED_ALL} to SQLite database ${file}.\n`,
      stderr: using(file),
    })

    const handle = new SqliteDatabase(file, { readonly: true })
    const migrations = handle.prepare('select name from kysely_migration order by name').all()
    const tables = handle
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'kysely_%' and name not like " +
          "'sqlite_%' order by name",
      )
      .all()
    handle.close()
    assert.deepEqual(migrations, [
      { name: '0001_initial' },
      { name: '0002_orders' },
      { name: '0003_api_key_scopes' },
      { name: '0004_idempotency_keys' },
      { name: '0005_pet_versions' },
      { name: '0006_data_version' },
      { name: '0007_events' },
      { name: '0008_webhooks' },
      { name: '0009_webhook_fan_out' },
      { name: '0010_event_log' },
      { name: '0011_categories' },
      { name: '0012_event_inbox' },
      { name: '0013_data_version_free_shard' },
      { name: '0014_category_version_floor' },
      { name: '0015_webhook_pending_events' },
      { name: '0016_category_name_key_sharp_s' },
      { name: '0017_category_name_key_composed' },
      { name: '0018_category_name_key_decomposed' },
    ])
    assert.deepEqual(tables, [
      { name: 'api_keys' },
      { name: 'categories' },
      { name: 'category_id_counter' },
      { name: 'event_retention' },
      { name: 'events' },
      { name: 'idempotency_keys' },
      { name: 'orders' },
      { name: 'pets' },
      { name: 'service_secrets' },
      { name: 'webhook_attempts' },
      { name: 'webhook_deliveries' },
      { name: 'webhook_endpoints' },
      { name: 'webhook_fan_out' },
    ])

    const second = await petstore(['migrate'], { cwd: directory })
    assert.deepEqual(second, { code: 0, stdout: `The SQLite database ${file} is up to date.\n`, stderr: using(file) })
  })

  it('uses DATABASE_URL when it is set', async () => {
    const file = join(directory, 'elsewhere', 'pets.db')
    const result = await petstore(['migrate'], { cwd: directory, env: { DATABASE_URL: 'sqlite:elsewhere/pets.db' } })
    assert.deepEqual(result, {
      code: 0,
      stdout: `${APPLIED_ALL} to SQLite database ${file}.\n`,
      stderr: using(file),
    })
    assert.ok(existsSync(file))
  })
})

describe('petstore keys', () => {
  const directory = realpathSync(makeTempDir())
  const file = join(directory, 'petstore.db')
  const env = { DATABASE_URL: `file:${file}` }
  const run = (...args: string[]) => petstore(args, { cwd: directory, env })
  after(() => rmSync(directory, { recursive: true, force: true }))

  /**
   * `keys create --name NAME [OPTIONS]`, checked to print exactly one line naming the scopes (all by default)
   * and the expiry; returns the id, the key and the expiry it printed.
   */
  async function createKey(
    name: string,
    nameArguments = ['--name', name],
    options: { args?: string[]; scopes?: string } = {},
  ): Promise<{ id: number; key: string; expiry: string }> {
    const result = await run('keys', 'create', ...nameArguments, ...(options.args ?? []))
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, using(file))
    const created = new RegExp(
      /^Created key (\d+) \((.*)\) with scopes (\S+), (never expiring|expiring \S+): /.source +
        /(\S+) {2}\(shown only now; store it safely\)\n$/.source,
    )
    const match = created.exec(result.stdout)
    assert.ok(match, `unexpected output: ${JSON.stringify(result.stdout)}`)
    assert.equal(match[2], name)
    assert.equal(match[3], options.scopes ?? ALL_SCOPES)
    const key = match[5] ?? ''
    assert.match(key, KEY_PATTERN)
    return { id: Number(match[1]), key, expiry: match[4] ?? '' }
  }

  before(async () => {
    // keys never create a database: the file exists because migrate (or the service) made it.
    assert.equal((await petstore(['migrate'], { cwd: directory, env })).code, 0)
  })

  it('lists no keys in a new database', async () => {
    assert.deepEqual(await run('keys', 'list'), { code: 0, stdout: 'No stored keys.\n', stderr: using(file) })
  })

  it('refuses to create a database: run from a subfolder, each keys command names where it looked and how to point \
elsewhere', async () => {
    const service = realpathSync(makeTempDir())
    try {
      assert.equal((await petstore(['migrate'], { cwd: service })).code, 0)
      const subfolder = join(service, 'scripts')
      mkdirSync(subfolder)
      const looked = join(subfolder, 'data', 'petstore.db')
      for (const args of [
        ['keys', 'create', '--name', 'ci'],
        ['keys', 'list'],
        ['keys', 'revoke', '1'],
      ]) {
        const result = await petstore(args, { cwd: subfolder })
        assert.deepEqual(result, {
          code: 1,
          stdout: '',
          stderr:
            using(looked) +
            `petstore: no SQLite database at ${looked}, and ${args.slice(0, 2).join(' ')} does not create one. ` +
            'Run it in the directory the service runs in (the default database is data/petstore.db under the ' +
            'current directory), ' +
            'set DATABASE_URL=file:/path/to/petstore.db, or create the database first with "petstore migrate" or ' +
            '"npm start".\n',
        })
        assert.equal(existsSync(join(subfolder, 'data')), false)
      }
      // Pointed at the service's database, the same command works from the subfolder.
      const listed = await petstore(['keys', 'list'], {
        cwd: subfolder,
        env: { DATABASE_URL: 'file:../data/petstore.db' },
      })
      assert.deepEqual(listed, {
        code: 0,
        stdout: 'No stored keys.\n',
        stderr: using(join(service, 'data', 'petstore.db')),
      })
    } finally {
      rmSync(service, { recursive: true, force: true })
    }
  })

  it('warns, after the database line, about a near miss of a variable it reads, and one it no longer \
reads', async () => {
    const result = await petstore(['keys', 'list'], {
      cwd: directory,
      env: { ...env, DATABSE_URL: 'postgres://u:secret@db/x', PETSTORE_API_KEY: 'k', WEBHOOK_LEASE_MS: '7000' },
    })
    assert.deepEqual(result, {
      code: 0,
      stdout: 'No stored keys.\n',
      stderr:
        using(file) +
        'petstore: warning: DATABSE_URL is set but petstore does not read it; did you mean DATABASE_URL?\n' +
        'petstore: warning: PETSTORE_API_KEY is set but petstore does not read it; did you mean PETSTORE_API_KEYS?\n' +
        'petstore: warning: WEBHOOK_LEASE_MS is set but petstore no longer reads it; ' +
        'it is fixed at 6 × the attempt time-out (60 s)\n',
    })
  })

  it('creates a key, prints it once on one line, and stores only its SHA-256', async () => {
    const { id, key } = await createKey('ci-bot')
    const row = readKeys(file).find((candidate) => candidate.id === id)
    assert.deepEqual(row, {
      id,
      name: 'ci-bot',
      key_hash: sha256(key),
      key_prefix: key.slice(0, 8),
      created_at: row?.created_at,
      last_used_at: null,
      revoked_at: null,
      scopes: 'pets:read pets:write orders:read orders:write events:read webhooks:manage',
      expires_at: null,
    })
    assert.ok(Math.abs(Date.parse(row?.created_at ?? '') - Date.now()) < 60_000)
    const randomPart = key.slice('pst_'.length)
    for (const text of everyStoredText(file)) {
      assert.ok(!text.includes(randomPart), 'the key (or its random part) is stored in the database')
    }
  })

  it('--quiet prints the key alone, for a script to capture', async () => {
    const result = await run('keys', 'create', '--name', 'script', '--quiet')
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, using(file))
    const key = result.stdout.trimEnd()
    assert.match(key, KEY_PATTERN)
    assert.equal(result.stdout, `${key}\n`)
    assert.equal(readKeys(file).find((row) => row.name === 'script')?.key_hash, sha256(key))
  })

  for (const quiet of [[], ['--quiet']]) {
    const command = ['keys create', ...quiet].join(' ')
    it(`${command} with standard output on a full disk: exit 1, and no key stored`, async () => {
      const before = readKeys(file).map(({ id }) => id)
      const full = openSync('/dev/full', 'w')
      let result: Awaited<ReturnType<typeof petstore>>
      try {
        result = await runCli(['keys', 'create', '--name', 'unseen', ...quiet], env, {
          cwd: directory,
          stdoutInto: full,
        })
      } finally {
        closeSync(full)
      }
      assert.deepEqual(result, {
        code: 1,
        stdout: '',
        stderr:
          using(file) +
          'petstore: the new key could not be written to standard output (ENOSPC); it was withdrawn, so no key ' +
          'was created\n',
      })
      assert.deepEqual(
        readKeys(file).map(({ id }) => id),
        before,
      )
    })
  }

  it('keys create waits for a reader that is slow to take its output, and the key is kept', async () => {
    assert.equal((await run('migrate')).code, 0)
    const before = readKeys(file).length
    const gate = join(directory, 'gate')
    // 64 KiB ahead of the key fill the pipe (Linux's default size), and its reader starts once the gate file
    // exists: the key's write finds the pipe full until then.
    const script =
      'set -o pipefail; { head -c 65536 /dev/zero; exec "$@"; } | ' +
      '{ while [ ! -e "$GATE" ]; do sleep 0.05; done; tail -c +65537; }'
    const child = spawn(
      'bash',
      ['-c', script, 'bash', process.execPath, ...cliArguments(['keys', 'create', '--name', 'slow', '--quiet'])],
      { cwd: directory, env: { PATH: process.env.PATH ?? '', ...env, GATE: gate }, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const ended = new Promise<number | null>((resolve) => child.once('close', resolve))
    try {
      // Until the key is issued (its write then waits for the pipe), or the command has given up on it.
      const deadline = Date.now() + 30_000
      while (readKeys(file).length === before && !/could not be written/.test(stderr)) {
        assert.ok(Date.now() < deadline, `no key issued: ${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      writeFileSync(gate, '')
      assert.equal(await ended, 0, stderr)
      assert.match(stdout.trimEnd(), KEY_PATTERN)
      assert.equal(readKeys(file).find((row) => row.name === 'slow')?.key_hash, sha256(stdout.trimEnd()))
    } finally {
      child.kill('SIGKILL')
    }
  })

  // The commands name the database they use first; the help and the version use none.
  for (const [command, namesDatabase] of [
    [['keys', 'list'], true],
    [['migrate'], true],
    [['webhooks', 'list'], true],
    [['--version'], false],
    [['--help'], false],
    [['keys', '--help'], false],
  ] as const)
    it(`petstore ${command.join(' ')} with standard output on a full disk: exit 1, saying so`, async () => {
      const full = openSync('/dev/full', 'w')
      let result: Awaited<ReturnType<typeof petstore>>
      try {
        result = await runCli([...command], env, { cwd: directory, stdoutInto: full })
      } finally {
        closeSync(full)
      }
      assert.deepEqual(result, {
        code: 1,
        stdout: '',
        stderr:
          (namesDatabase ? using(file) : '') +
          'petstore: the output could not be written to standard output (ENOSPC)\n',
      })
    })

  it('creates a different key every time, with --name=VALUE too', async () => {
    const first = await createKey('deploy bot', ['--name=deploy bot'])
    const second = await createKey('deploy bot')
    assert.ok(second.id > first.id)
    assert.notEqual(second.key, first.key)
    const rows = readKeys(file)
    assert.equal(rows.find((row) => row.id === first.id)?.key_hash, sha256(first.key))
    assert.equal(rows.find((row) => row.id === second.id)?.key_hash, sha256(second.key))
  })

  it('lists id, name, prefix, scopes, created, expiry, last used and state (expired included), never \
the key', async () => {
    const { key } = await createKey('listed')
    // Fewer scopes, stored in canonical order; --expires-at takes any offset and is stored in UTC.
    const { id: expiredId, expiry } = await createKey('expired', ['--name=expired'], {
      args: ['--expires-at=2099-01-01T01:00:00+01:00', '--scopes=orders:write,orders:read'],
      scopes: 'orders:read,orders:write',
    })
    assert.equal(expiry, 'expiring 2099-01-01T00:00:00.000Z')
    const stored = readKeys(file).find((row) => row.id === expiredId)
    assert.deepEqual([stored?.scopes, stored?.expires_at], ['orders:read orders:write', '2099-01-01T00:00:00.000Z'])
    // Moved into the past, as time would move it: listed as expired.
    const handle = new SqliteDatabase(file)
    handle.prepare('update api_keys set expires_at = ? where id = ?').run('2020-01-01T00:00:00.000Z', expiredId)
    handle.close()
    const result = await run('keys', 'list')
    const rows = readKeys(file)
    const state = (row: ApiKeyRow) =>
      row.revoked_at
        ? `revoked ${row.revoked_at}`
        : row.expires_at && Date.parse(row.expires_at) < Date.now()
          ? `expired ${row.expires_at}`
          : 'active'
    assert.deepEqual(result, {
      code: 0,
      stdout: [
        'id\tname\tprefix\tscopes\tcreated\texpires\tlast used\tstate',
        ...rows.map(
          (row) =>
            `${row.id}\t${row.name}\t${row.key_prefix}…\t${row.scopes.replaceAll(' ', ',')}\t${row.created_at}\t` +
            `${row.expires_at ?? 'never'}\tnever\t${state(row)}`,
        ),
        '',
      ].join('\n'),
      stderr: using(file),
    })
    assert.ok(result.stdout.includes(`\tlisted\t${key.slice(0, 8)}…\t${ALL_SCOPES}\t`))
    assert.ok(
      result.stdout.includes(`${expiredId}\texpired\t`) &&
        result.stdout.includes('\torders:read,orders:write\t') &&
        result.stdout.includes('\texpired 2020-01-01T00:00:00.000Z\n'),
      result.stdout,
    )
    assert.ok(!result.stdout.includes(key.slice(8)))
  })

  it('revokes a key in one line, and says so when it was already revoked', async () => {
    const { id, key } = await createKey('to-revoke')
    const revoked = await run('keys', 'revoke', String(id))
    assert.deepEqual(revoked, {
      code: 0,
      stdout: `Revoked key ${id} (to-revoke); it is refused from now on.\n`,
      stderr: using(file),
    })
    const row = readKeys(file).find((candidate) => candidate.id === id)
    assert.match(row?.revoked_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

    const again = await run('keys', 'revoke', String(id))
    assert.deepEqual(again, {
      code: 0,
      stdout: `Key ${id} (to-revoke) was already revoked at ${row?.revoked_at}; nothing changed.\n`,
      stderr: using(file),
    })
    assert.equal(readKeys(file).find((candidate) => candidate.id === id)?.revoked_at, row?.revoked_at)

    const list = await run('keys', 'list')
    assert.ok(
      list.stdout
        .split('\n')
        .includes(
          `${id}\tto-revoke\t${key.slice(0, 8)}…\t${ALL_SCOPES}\t${row?.created_at}\tnever\tnever\trevoked ` +
            `${row?.revoked_at}`,
        ),
      list.stdout,
    )
  })

  it('fails with exit 1 and a line on stderr for an unknown id', async () => {
    const before = readKeys(file)
    assert.deepEqual(await run('keys', 'revoke', '999'), {
      code: 1,
      stdout: '',
      stderr: `${using(file)}petstore: No key has id 999.\n`,
    })
    assert.deepEqual(readKeys(file), before)
  })

  for (const id of ['abc', '0', '1.5', '99999999999999999']) {
    it(`refuses the id ${JSON.stringify(id)} with a usage error, exit 2`, async () => {
      const before = readKeys(file)
      assert.deepEqual(await run('keys', 'revoke', id), {
        code: 2,
        stdout: '',
        stderr:
          'petstore: keys revoke needs a key id (a positive integer), not ' +
          `${JSON.stringify(id)}\n${KEYS_REVOKE_USAGE}`,
      })
      assert.deepEqual(readKeys(file), before)
    })
  }

  it('refuses keys revoke without an id, or with two', async () => {
    const expected = {
      code: 2,
      stdout: '',
      stderr: `petstore: keys revoke needs exactly one key id (see keys list)\n${KEYS_REVOKE_USAGE}`,
    }
    assert.deepEqual(await run('keys', 'revoke'), expected)
    assert.deepEqual(await run('keys', 'revoke', '1', '2'), expected)
  })
})

describe('keys create options, parsed in process', () => {
  const NOW = Date.parse('2026-06-01T12:00:00.000Z')

  it('--scopes: a comma-separated subset, each scope at most once, in canonical order when stored', () => {
    assert.equal(parseScopeList(undefined), undefined)
    assert.deepEqual(parseScopeList('orders:write'), ['orders:write'])
    assert.deepEqual(parseScopeList(' orders:read , pets:read,pets:read'), ['orders:read', 'pets:read', 'pets:read'])
    assert.equal(formatScopes(parseScopeList('orders:read,pets:read,pets:read') ?? []), 'pets:read orders:read')
  })

  for (const text of [
    'pets:delete',
    'pets:read orders:read',
    'PETS:READ',
    '',
    'pets:read,',
    ',pets:read',
    'pets',
    '*',
  ]) {
    it(`--scopes ${JSON.stringify(text)} is refused`, () => {
      const unknown = text
        .split(',')
        .map((name) => name.trim())
        .find(
          (name) =>
            !['pets:read', 'pets:write', 'orders:read', 'orders:write', 'events:read', 'webhooks:manage'].includes(
              name,
            ),
        )
      assert.throws(
        () => parseScopeList(text),
        new KeyOptionError(`${SCOPES_TAKE}; ${JSON.stringify(unknown)} is not one`),
      )
    })
  }

  it('--expires-in: whole minutes, hours or days from now; --expires-at: any offset, stored in UTC; neither: \
never', () => {
    const expiry = (expiresIn?: string, expiresAt?: string) => parseExpiry({ expiresIn, expiresAt }, NOW)
    assert.equal(expiry(), undefined)
    assert.equal(expiry('90m'), '2026-06-01T13:30:00.000Z')
    assert.equal(expiry('12h'), '2026-06-02T00:00:00.000Z')
    assert.equal(expiry('30d'), '2026-07-01T12:00:00.000Z')
    assert.equal(expiry('999999d'), new Date(NOW + 999_999 * 86_400_000).toISOString())
    assert.equal(expiry(undefined, '2027-01-01T01:00:00+01:00'), '2027-01-01T00:00:00.000Z')
    assert.equal(expiry(undefined, '2026-06-01T12:00:00.001Z'), '2026-06-01T12:00:00.001Z')
  })

  for (const duration of ['30', '0d', '1.5d', '3w', '30 d', '', '1000000d', '-1d', '30D', '1s']) {
    it(`--expires-in ${JSON.stringify(duration)} is refused`, () => {
      assert.throws(
        () => parseExpiry({ expiresIn: duration, expiresAt: undefined }, NOW),
        new KeyOptionError(
          '--expires-in takes 1 to 999999 whole minutes, hours or days (90m, 12h, 30d), not ' +
            JSON.stringify(duration),
        ),
      )
    })
  }

  for (const date of [
    '2027-02-30T00:00:00Z',
    '2027-01-01',
    '2027-01-01T00:00:00',
    '2027-01-01T24:00:00Z',
    'tomorrow',
    '',
  ]) {
    it(`--expires-at ${JSON.stringify(date)} is refused`, () => {
      assert.throws(
        () => parseExpiry({ expiresIn: undefined, expiresAt: date }, NOW),
        new KeyOptionError(
          `--expires-at takes an RFC 3339 date-time with an offset (2027-01-01T00:00:00Z), not ${JSON.stringify(date)}`,
        ),
      )
    })
  }

  it('--expires-at must be in the future, and only one of the two options may be given', () => {
    for (const date of ['2026-06-01T12:00:00.000Z', '2026-06-01T13:00:00+02:00', '2020-01-01T00:00:00Z']) {
      assert.throws(
        () => parseExpiry({ expiresIn: undefined, expiresAt: date }, NOW),
        new KeyOptionError(`--expires-at ${date} is not in the future`),
      )
    }
    assert.throws(
      () => parseExpiry({ expiresIn: '1d', expiresAt: '2027-01-01T00:00:00Z' }, NOW),
      new KeyOptionError('give --expires-in or --expires-at, not both'),
    )
  })
})

// Each case is a separate process that touches nothing, so they run side by side.
describe('petstore usage errors', { concurrency: 4 }, () => {
  const directory = realpathSync(makeTempDir())
  after(() => rmSync(directory, { recursive: true, force: true }))

  const NAME_NEEDED =
    'keys create needs --name NAME (1 to 100 characters, no control or bidirectional override characters)'
  // For arguments node:util parseArgs refuses, its own wording follows the prefix; it varies across Node versions.
  const cases: { args: string[]; message: string | RegExp; usage: string }[] = [
    { args: ['keys', 'create'], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    { args: ['keys', 'create', '--name', ''], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    { args: ['keys', 'create', '--name', '   '], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    { args: ['keys', 'create', '--name', 'x'.repeat(101)], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    { args: ['keys', 'create', '--name', 'tab\there'], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    { args: ['keys', 'create', '--name', 'escape\u001b[31m'], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    { args: ['keys', 'create', '--name', 'gnp.\u202eexe'], message: NAME_NEEDED, usage: KEYS_CREATE_USAGE },
    {
      args: ['keys', 'create', '--name'],
      message: /^keys create: .*'--name <value>'.* missing/,
      usage: KEYS_CREATE_USAGE,
    },
    {
      args: ['keys', 'create', '--name', 'bot', 'extra'],
      message: 'keys create: unexpected argument "extra"',
      usage: KEYS_CREATE_USAGE,
    },
    { args: ['keys', 'create', '--colour', 'red'], message: /^keys create: .*'--colour'/, usage: KEYS_CREATE_USAGE },
    // Every refusal of --scopes, --expires-in and --expires-at is checked in process (below); these prove that
    // each kind ends as a usage error before the database is touched.
    {
      args: ['keys', 'create', '--name', 'bot', '--scopes', 'pets:delete'],
      message: `keys create: ${SCOPES_TAKE}; "pets:delete" is not one`,
      usage: KEYS_CREATE_USAGE,
    },
    {
      args: ['keys', 'create', '--name', 'bot', '--expires-in', '3w'],
      message: 'keys create: --expires-in takes 1 to 999999 whole minutes, hours or days (90m, 12h, 30d), not "3w"',
      usage: KEYS_CREATE_USAGE,
    },
    {
      args: ['keys', 'create', '--name', 'bot', '--expires-at', '2020-01-01T00:00:00Z'],
      message: 'keys create: --expires-at 2020-01-01T00:00:00Z is not in the future',
      usage: KEYS_CREATE_USAGE,
    },
    {
      args: ['keys', 'create', '--name', 'bot', '--expires-in', '30d', '--expires-at', '2099-01-01T00:00:00Z'],
      message: 'keys create: give --expires-in or --expires-at, not both',
      usage: KEYS_CREATE_USAGE,
    },
    {
      args: ['keys', 'create', '--name', 'first', '--name', 'second'],
      message: 'keys create: --name is given more than once',
      usage: KEYS_CREATE_USAGE,
    },
    {
      args: ['webhooks', 'deliveries', '1', '--limit', '5', '--limit=10'],
      message: 'webhooks deliveries: --limit is given more than once',
      usage: usageOf('webhooks deliveries', 'petstore webhooks deliveries ID [--limit N]'),
    },
    { args: [], message: 'a command is required', usage: GLOBAL_USAGE },
    { args: ['frobnicate'], message: 'unknown command "frobnicate"', usage: GLOBAL_USAGE },
    { args: ['--frobnicate'], message: 'unknown option "--frobnicate"', usage: GLOBAL_USAGE },
    {
      args: ['--help', '--version'],
      message: "--help takes a command's name only; for a command's help: petstore COMMAND --help",
      usage: GLOBAL_USAGE,
    },
    {
      args: ['help', 'help'],
      message: "help takes a command's name only; for a command's help: petstore COMMAND --help",
      usage: GLOBAL_USAGE,
    },
    { args: ['help', 'frobnicate'], message: 'unknown command "frobnicate"', usage: GLOBAL_USAGE },
    { args: ['keys'], message: 'keys needs a subcommand: create, list or revoke', usage: GLOBAL_USAGE },
    {
      args: ['keys', '--all'],
      message: 'keys: unknown option "--all"; keys needs a subcommand: create, list or revoke',
      usage: GLOBAL_USAGE,
    },
    { args: ['keys', 'delete', '1'], message: 'unknown command "keys delete"', usage: GLOBAL_USAGE },
    {
      args: ['keys', 'list', '--all'],
      message: /^keys list: .*'--all'/,
      usage: usageOf('keys list', 'petstore keys list'),
    },
    {
      args: ['migrate', 'now'],
      message: 'migrate: unexpected argument "now"',
      usage: usageOf('migrate', 'petstore migrate'),
    },
    { args: ['serve', '--port', '80'], message: /^serve: .*'--port'/, usage: usageOf('serve', 'petstore serve') },
    { args: ['serve', '-x'], message: /^serve: .*'-x'/, usage: usageOf('serve', 'petstore serve') },
  ]

  for (const { args, message, usage } of cases) {
    it(`petstore ${args.join(' ') || '(nothing)'}: usage on stderr, exit 2, no database touched`, async () => {
      // A misspelt variable changes nothing: usage errors come first, and say nothing else.
      const result = await petstore(args, { cwd: directory, env: { PROT: '1' } })
      assert.equal(result.code, 2)
      assert.equal(result.stdout, '')
      if (typeof message === 'string') {
        assert.equal(result.stderr, `petstore: ${message}\n${usage}`)
      } else {
        assert.ok(result.stderr.startsWith('petstore: ') && result.stderr.endsWith(`\n${usage}`), result.stderr)
        const firstLine = result.stderr.slice('petstore: '.length, -usage.length - 1)
        assert.ok(!firstLine.includes('\n'), result.stderr)
        assert.match(firstLine, message)
      }
      assert.equal(existsSync(join(directory, 'data')), false)
    })
  }
})

describe('petstore --help and --version', { concurrency: 4 }, () => {
  const directory = realpathSync(makeTempDir())
  after(() => rmSync(directory, { recursive: true, force: true }))
  // A broken environment must not stand between the operator and the help.
  const env = { PORT: 'abc', DATABASE_URL: 'mysql://x' }

  for (const args of [['--help'], ['-h'], ['help']]) {
    it(`petstore ${args.join(' ')}: the commands and every environment variable, on stdout, exit 0`, async () => {
      const result = await petstore(args, { cwd: directory, env })
      assert.equal(result.code, 0)
      assert.equal(result.stderr, '')
      assert.ok(result.stdout.startsWith(SYNOPSIS), result.stdout)
      const variables = result.stdout
        .split('\n')
        .filter((line) => /^ {2}[A-Z_]+ {2,}\S/.test(line))
        .map((line) => line.trim().split(' ')[0])
      assert.deepEqual(variables, [...CONFIG_VARIABLES])
      assert.ok(
        result.stdout.includes(
          '\n  DATABASE_URL                     file:PATH or sqlite:PATH (SQLite), postgres://… (PostgreSQL); ' +
            'default SQLite in data/petstore.db under the current directory\n',
        ),
        result.stdout,
      )
      assert.ok(result.stdout.endsWith('\nExit codes: 0 success, 1 failure, 2 usage error.\n'), result.stdout)
      assert.equal(existsSync(join(directory, 'data')), false)
    })
  }

  it('petstore keys create --help: its usage, what it does, its options and the variables it reads, \
exit 0', async () => {
    const result = await petstore(['keys', 'create', '--help'], { cwd: directory, env })
    assert.deepEqual(result, {
      code: 0,
      stderr: '',
      stdout: `Usage: petstore keys create --name NAME [--scopes LIST] [--expires-in DURATION | --expires-at \
DATE-TIME] [--quiet]

Create an API key and print it, once, on stdout; only its SHA-256 is stored. Every scope and no expiry unless the \
options say otherwise. The first line on stderr names the database used. It never creates a SQLite database: create \
one with petstore migrate (or npm start) first.

Options:
  --name NAME             a name for the key: 1 to 100 characters, no control or bidirectional override \
characters (required)
  --scopes LIST           comma-separated, from pets:read, pets:write, orders:read, orders:write, events:read, \
webhooks:manage
  --expires-in DURATION   whole minutes, hours or days from now: 90m, 12h, 30d
  --expires-at DATE-TIME  an RFC 3339 date-time in the future: 2027-01-01T00:00:00Z
  --quiet                 print the key alone, for a script to capture: KEY=$(petstore keys create --name ci --quiet)
  -h, --help              show this help

Environment variables (the others are checked too):
  DATABASE_URL                   file:PATH or sqlite:PATH (SQLite), postgres://… (PostgreSQL); default SQLite in \
data/petstore.db under the current directory
  DATABASE_POOL_SIZE             PostgreSQL connections for transactions, per process (serve opens six more); default 10
  DATABASE_STATEMENT_TIMEOUT_MS  PostgreSQL statement time-out in milliseconds; default 1500
`,
    })
  })

  const commands: { args: string[]; usage: string; variables: readonly string[] }[] = [
    { args: ['serve', '--help'], usage: 'petstore serve', variables: CONFIG_VARIABLES },
    {
      args: ['migrate', '-h'],
      usage: 'petstore migrate',
      variables: ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_STATEMENT_TIMEOUT_MS'],
    },
    {
      args: ['keys', 'list', '--help'],
      usage: 'petstore keys list',
      variables: ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_STATEMENT_TIMEOUT_MS'],
    },
    {
      args: ['keys', 'revoke', '--help'],
      usage: 'petstore keys revoke ID',
      variables: ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_STATEMENT_TIMEOUT_MS'],
    },
    {
      args: ['webhooks', 'list', '--help'],
      usage: 'petstore webhooks list',
      variables: ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_STATEMENT_TIMEOUT_MS'],
    },
  ]
  for (const { args, usage, variables } of commands) {
    it(`petstore ${args.join(' ')}: its usage, --help and the variables it reads, exit 0`, async () => {
      const result = await petstore(args, { cwd: directory, env })
      assert.equal(result.code, 0)
      assert.equal(result.stderr, '')
      assert.ok(result.stdout.startsWith(`Usage: ${usage}\n\n`), result.stdout)
      assert.ok(
        result.stdout.includes('\nOptions:\n  -h, --help  show this help\n\nEnvironment variables'),
        result.stdout,
      )
      const listed = result.stdout
        .slice(result.stdout.indexOf('\nEnvironment variables'))
        .split('\n')
        .filter((line) => line.startsWith('  '))
        .map((line) => line.trim().split(' ')[0])
      assert.deepEqual(listed, [...variables])
    })
  }

  const spelledOtherwise: [asked: string[], same: string[]][] = [
    [
      ['help', 'keys', 'create'],
      ['keys', 'create', '--help'],
    ],
    [
      ['--help', 'serve'],
      ['serve', '--help'],
    ],
    [
      ['-h', 'keys'],
      ['keys', '--help'],
    ],
  ]
  for (const [asked, same] of spelledOtherwise) {
    it(`petstore ${asked.join(' ')} prints what petstore ${same.join(' ')} does, exit 0`, async () => {
      const [result, expected] = await Promise.all([
        petstore(asked, { cwd: directory, env }),
        petstore(same, { cwd: directory, env }),
      ])
      assert.equal(expected.code, 0)
      assert.ok(expected.stdout.startsWith('Usage:'), expected.stdout)
      assert.deepEqual(result, expected)
    })
  }

  it('petstore keys --help lists the keys subcommands only', async () => {
    const result = await petstore(['keys', '--help'], { cwd: directory, env })
    assert.equal(result.code, 0)
    assert.equal(result.stderr, '')
    const lines = result.stdout.split('\n')
    assert.equal(lines[0], 'Usage:')
    assert.deepEqual(
      lines.slice(1, 4).map((line) => line.trim().split(/ {2,}/)[0]),
      ['petstore keys create --name NAME', 'petstore keys list', 'petstore keys revoke ID'],
    )
    assert.equal(lines[5], 'Run "petstore keys SUBCOMMAND --help" for its options and environment variables.')
    assert.ok(!result.stdout.includes('webhooks'), result.stdout)
  })

  it('petstore webhooks -h lists the webhooks subcommands only', async () => {
    const result = await petstore(['webhooks', '-h'], { cwd: directory, env })
    assert.equal(result.code, 0)
    assert.deepEqual(
      result.stdout
        .split('\n')
        .slice(1, 3)
        .map((line) => line.trim().split(/ {2,}/)[0]),
      ['petstore webhooks list', 'petstore webhooks deliveries ID'],
    )
    assert.ok(!result.stdout.includes('keys'), result.stdout)
  })

  for (const flag of ['--version', '-v']) {
    it(`petstore ${flag}: the version of package.json, exit 0`, async () => {
      const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version: string
      }
      assert.deepEqual(await petstore([flag], { cwd: directory, env }), {
        code: 0,
        stdout: `petstore ${version}\n`,
        stderr: '',
      })
    })
  }
})

describe('petstore with a bad environment variable', { concurrency: 4 }, () => {
  const directory = realpathSync(makeTempDir())
  after(() => rmSync(directory, { recursive: true, force: true }))

  const cases: { env: Record<string, string>; line: string; secrets?: string[]; alsoServe?: true }[] = [
    { env: { PORT: 'abc' }, line: 'PORT="abc" is not valid: an integer from 0 to 65535', alsoServe: true },
    { env: { PORT: '70000' }, line: 'PORT="70000" is not valid: an integer from 0 to 65535' },
    { env: { HOST: 'not a host' }, line: 'HOST="not a host" is not valid: a host name or IP address' },
    {
      env: { DATABASE_URL: 'mysql://x' },
      line:
        'DATABASE_URL="mysql://x" is not valid: file:PATH or sqlite:PATH (SQLite), or postgres://… / ' +
        'postgresql://… (PostgreSQL)',
    },
    {
      env: { DATABASE_URL: 'mysql://admin:hunter2hunter2@db.internal/petstore' },
      line:
        'DATABASE_URL="mysql://admin:***@db.internal/petstore" is not valid: file:PATH or sqlite:PATH (SQLite), or ' +
        'postgres://… / postgresql://… (PostgreSQL)',
      secrets: ['hunter2hunter2'],
    },
    {
      env: { LOG_LEVEL: 'loud' },
      line: 'LOG_LEVEL="loud" is not valid: one of fatal, error, warn, info, debug, trace, silent',
    },
    {
      env: { PETSTORE_API_KEYS: 'short' },
      line:
        'PETSTORE_API_KEYS is not valid: key 1 of 1 is 5 characters long; expected comma-separated keys, each at ' +
        'least 16 visible ASCII characters without white space',
      secrets: ['short'],
    },
    {
      env: { PETSTORE_API_KEYS: 'a-perfectly-good-secret-key,tiny-secret' },
      line:
        'PETSTORE_API_KEYS is not valid: key 2 of 2 is 11 characters long; expected comma-separated keys, each at ' +
        'least 16 visible ASCII characters without white space',
      secrets: ['a-perfectly-good-secret-key', 'tiny-secret'],
      alsoServe: true,
    },
    {
      env: { PETSTORE_API_KEYS: 'secret with spaces 0123456789' },
      line:
        'PETSTORE_API_KEYS is not valid: key 1 of 1 contains white space or a character outside visible ASCII; ' +
        'expected comma-separated keys, each at least 16 visible ASCII characters without white space',
      secrets: ['secret with spaces'],
    },
    {
      env: { PUBLIC_BASE_URL: 'https://petstore.example.com/v1' },
      line:
        'PUBLIC_BASE_URL="https://petstore.example.com/v1" is not valid: an http(s) origin such as ' +
        'https://petstore.example.com (no path, query or credentials)',
    },
    {
      // Read as a file name, it would be a new, empty database that migrate (or serve) creates beside the real one.
      env: { DATABASE_URL: 'file:data/petstore.db?mode=ro' },
      line:
        'DATABASE_URL="file:data/petstore.db?mode=ro" is not valid: file:PATH or sqlite:PATH takes a plain path; ' +
        'SQLite URI parameters (?mode=ro, ?cache=shared) are not read, and a ? or # would become part of the file name',
    },
    {
      env: { DATABASE_URL: 'file:~/petstore.db' },
      line:
        'DATABASE_URL="file:~/petstore.db" is not valid: file:PATH or sqlite:PATH takes a path from / or from the ' +
        'current directory; ~ is not expanded to the home directory',
    },
    {
      env: { REDIS_URL: 'http://cache' },
      line: 'REDIS_URL="http://cache" is not valid: a well-formed redis:// or rediss:// URL',
    },
  ]

  for (const { env, line, secrets = [], alsoServe } of cases) {
    for (const command of alsoServe ? [['keys', 'list'], ['serve']] : [['keys', 'list']]) {
      it(`${Object.entries(env)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')} petstore ${command.join(' ')}: one line naming the variable, exit 1`, async () => {
        const result = await petstore(command, { cwd: directory, env })
        assert.deepEqual(result, { code: 1, stdout: '', stderr: `petstore: ${line}\n` })
        for (const secret of secrets) assert.ok(!result.stderr.includes(secret), `stderr echoes ${secret}`)
        assert.equal(existsSync(join(directory, 'data')), false)
      })
    }
  }
})

describe('petstore migrate with a SQLite path another program would read otherwise', { concurrency: 2 }, () => {
  const cases = [
    {
      url: 'file:data/petstore.db?mode=ro',
      accepts:
        'file:PATH or sqlite:PATH takes a plain path; SQLite URI parameters (?mode=ro, ?cache=shared) are not ' +
        'read, and a ? or # would become part of the file name',
    },
    {
      url: 'sqlite:~/petstore.db',
      accepts:
        'file:PATH or sqlite:PATH takes a path from / or from the current directory; ~ is not expanded to the home ' +
        'directory',
    },
  ]
  for (const { url, accepts } of cases) {
    it(`DATABASE_URL=${url}: refused with exit 1, and no database made under another name`, async () => {
      const directory = realpathSync(makeTempDir())
      try {
        const result = await petstore(['migrate'], { cwd: directory, env: { DATABASE_URL: url } })
        assert.deepEqual(result, {
          code: 1,
          stdout: '',
          stderr: `petstore: DATABASE_URL=${JSON.stringify(url)} is not valid: ${accepts}\n`,
        })
        assert.deepEqual(readdirSync(directory), [])
      } finally {
        rmSync(directory, { recursive: true, force: true })
      }
    })
  }
})

describe('a key created with the CLI, against a running server on the same database', () => {
  const directory = realpathSync(makeTempDir())
  let database: TestDatabase
  let server: TestServer
  const run = (...args: string[]) => petstore(args, { cwd: directory, env: { DATABASE_URL: database.url } })

  before(async () => {
    database = await createTestDatabase()
    server = await startTestServer({ database })
  })
  after(async () => {
    await server.close()
    await database.drop()
    rmSync(directory, { recursive: true, force: true })
  })

  async function storedKey(id: number) {
    return server.store.admin.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  }

  it('works at once, shows when it was last used, and is refused at once after keys revoke', async () => {
    const created = await run('keys', 'create', '--name', 'e2e')
    assert.equal(created.code, 0, created.stderr)
    const match = /^Created key (\d+) \(e2e\) with scopes [a-z:,]+, never expiring: (pst_\S+) {2}/.exec(created.stdout)
    assert.ok(match, created.stdout)
    const id = Number(match[1])
    const key = match[2] ?? ''

    const listed = await server.request('/v1/pets', { auth: key })
    assert.equal(listed.status, 200)
    assert.deepEqual(await listed.json(), [])

    // The server records last use asynchronously, at most once a minute per key.
    let lastUsed: string | null = null
    for (let attempt = 0; attempt < 50 && lastUsed === null; attempt++) {
      lastUsed = (await storedKey(id)).last_used_at
      if (lastUsed === null) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.ok(lastUsed !== null, 'last_used_at was not recorded within 5 seconds')
    assert.ok(Math.abs(Date.parse(lastUsed) - Date.now()) < 60_000)

    const list = await run('keys', 'list')
    assert.equal(list.code, 0)
    const row = await storedKey(id)
    assert.ok(
      list.stdout
        .split('\n')
        .includes(`${id}\te2e\t${key.slice(0, 8)}…\t${ALL_SCOPES}\t${row.created_at}\tnever\t${lastUsed}\tactive`),
      list.stdout,
    )

    const revoked = await run('keys', 'revoke', String(id))
    assert.deepEqual(
      { ...revoked, stderr: undefined },
      { code: 0, stdout: `Revoked key ${id} (e2e); it is refused from now on.\n`, stderr: undefined },
    )
    assert.match(
      revoked.stderr,
      /^petstore: using (SQLite database \/|PostgreSQL database 127\.0\.0\.1:)\S+( \(search_path \S+\))?\n$/,
    )

    const refused = await server.request('/v1/pets', { auth: key })
    assert.equal(refused.status, 401)
    assert.equal(
      refused.headers.get('www-authenticate'),
      'Bearer realm="petstore", error="invalid_token", error_description="The API key is not valid"',
    )
    assert.deepEqual(await refused.json(), { code: 'unauthorized', message: 'The API key is not valid.', status: 401 })

    // Revoking one key leaves the others alone.
    const other = await server.request('/v1/pets', { auth: TEST_API_KEY })
    assert.equal(other.status, 200)
  })

  it('limits a key created with --scopes to those scopes, on the running server', async () => {
    const created = await run('keys', 'create', '--name', 'reader', '--scopes', 'pets:read', '--expires-in', '12h')
    assert.equal(created.code, 0, created.stderr)
    const match = /^Created key (\d+) \(reader\) with scopes pets:read, expiring (\S+): (pst_\S+) {2}/.exec(
      created.stdout,
    )
    assert.ok(match, created.stdout)
    const key = match[3] ?? ''
    const row = await storedKey(Number(match[1]))
    assert.deepEqual([row.scopes, row.expires_at], ['pets:read', match[2]])
    assert.ok(
      Math.abs(Date.parse(row.expires_at ?? '') - (Date.now() + 12 * 3_600_000)) < 60_000,
      row.expires_at ?? 'no expiry',
    )

    assert.equal((await server.request('/v1/pets', { auth: key })).status, 200)
    const refused = await server.request('/v1/pets', { auth: key, json: { name: 'Rex', categoryId: 1 } })
    assert.equal(refused.status, 403)
    assert.equal(
      refused.headers.get('www-authenticate'),
      'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
    )
    assert.deepEqual(await refused.json(), {
      code: 'forbidden',
      message: 'This API key does not have the scope pets:write, which this operation requires.',
      status: 403,
    })
  })
})
