// What petstore import refuses, with exit 1, one line naming the cause, and the target as it was: a database
// that already holds a shop, a damaged, truncated, edited or reordered file, a newer format, webhook secrets
// sealed with another WEBHOOK_SECRET_KEY, a missing file. On both stores; an empty target is left unmigrated.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import SqliteDatabase from 'better-sqlite3'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import { migrateToLatest } from '../../src/db/migrate.js'
import { openStore } from '../../src/db/store.js'
import { loadConfig } from '../../src/config.js'
import { petstore, shopContents } from '../helpers/move.js'
import { makeTempDir, startTestServer } from '../helpers/server.js'
import { createTestDatabase, type TestDatabase, type TestStore } from '../helpers/store.js'
import { storedRows } from '../helpers/stored-rows.js'
import { LOOPBACK_WEBHOOKS, registerWebhook } from '../helpers/webhooks.js'

const WEBHOOK_SECRET_KEY = randomBytes(32).toString('hex')
const directory = makeTempDir()
const exported = join(directory, 'shop.jsonl')
const databases: TestDatabase[] = []

/** A copy of the exported file, changed by `edit`. */
function variant(name: string, edit: (text: string) => string): string {
  const file = join(directory, name)
  writeFileSync(file, edit(readFileSync(exported, 'utf8')))
  return file
}

/**
 * A copy of the exported file with its records changed by `edit`, then sealed again: counts and checksum made to
 * match, as someone editing it by hand could. Only what the rows themselves break can refuse it.
 */
function resealed(name: string, edit: (records: string[]) => string[]): string {
  const lines = readFileSync(exported, 'utf8').split('\n').slice(0, -1)
  const [header = '', ...rest] = lines
  const closing = JSON.parse(rest.pop() ?? '') as { counts: Record<string, number>; sha256: string }
  const records = edit(rest)
  for (const table of Object.keys(closing.counts))
    closing.counts[table] = records.filter((line) => line.startsWith(`{"table":"${table}","row"`)).length
  const body = [header, ...records].map((line) => `${line}\n`).join('')
  closing.sha256 = createHash('sha256').update(body, 'utf8').digest('hex')
  const file = join(directory, name)
  writeFileSync(file, `${body}${JSON.stringify(closing)}\n`)
  return file
}

/** Where a re-sealed file's rows break a rule of the shop: the store's own reason follows. */
const BREAKS_A_RULE =
  "petstore: import refused, nothing changed: the file's rows break a rule of the shop, so it was edited after " +
  'its export: '

async function migratedDatabase(store: TestStore): Promise<TestDatabase> {
  const database = await createTestDatabase(store)
  databases.push(database)
  const opened = openStore(loadConfig({ DATABASE_URL: database.url }))
  try {
    await migrateToLatest(opened.admin)
  } finally {
    await opened.close()
  }
  return database
}

before(async () => {
  const source = await createTestDatabase('sqlite')
  databases.push(source)
  const server = await startTestServer({ database: source, env: { ...LOOPBACK_WEBHOOKS, WEBHOOK_SECRET_KEY } })
  try {
    for (const name of ['Rex', 'Tom']) await server.request('/v1/pets', { json: { name, categoryId: 1 } })
    assert.equal((await server.request('/v1/store/orders', { json: { petId: 2, quantity: 1 } })).status, 201)
    await registerWebhook(server, undefined, { url: 'http://127.0.0.1:9/hooks' })
  } finally {
    await server.close()
  }
  const result = await petstore(['export', exported], { DATABASE_URL: source.url })
  assert.equal(result.code, 0, result.stderr)
})
after(async () => {
  for (const database of databases) await database.drop()
})

/** The names of the tables in `database` (its schema on PostgreSQL), sorted. */
async function tablesIn(database: TestDatabase): Promise<string[]> {
  const query = database.url.startsWith('file:')
    ? "select name from sqlite_master where type = 'table' order by name"
    : 'select table_name as name from information_schema.tables where table_schema = current_schema() order by 1'
  return (await storedRows<{ name: string }>(database, query)).map((row) => row.name)
}

async function refusedImport(target: TestDatabase, file: string, key = WEBHOOK_SECRET_KEY) {
  const result = await petstore(['import', file], { DATABASE_URL: target.url, WEBHOOK_SECRET_KEY: key })
  assert.equal(result.code, 1)
  assert.equal(result.stdout, '')
  return result.stderr.split('\n').slice(1).join('\n')
}

const REFUSALS: { name: string; file: () => string; cause: string; key?: string }[] = [
  {
    name: 'an edited file',
    file: () => variant('edited.jsonl', (text) => text.replace('"Rex"', '"Rey"')),
    cause: 'the file is damaged or edited: its checksum does not match its contents',
  },
  {
    name: 'a truncated file',
    file: () => variant('truncated.jsonl', (text) => text.split('\n').slice(0, 4).join('\n') + '\n'),
    cause: 'the file is truncated: it ends before its closing line',
  },
  {
    name: 'a damaged line',
    // The first record after the header: the cursor signing key, which every shop has.
    file: () =>
      variant('damaged.jsonl', (text) =>
        text.replace('\n{"table":"service_secrets"', '\n{"table":"service_secrets"}}'),
      ),
    cause: 'the file is damaged: line 2 is not JSON',
  },
  {
    // The database refuses the order first (its pet is not loaded yet); the file is what is wrong, and said so.
    name: 'lines moved (an order before the pet it holds)',
    file: () =>
      variant('moved.jsonl', (text) => {
        const lines = text.split('\n')
        const [order = ''] = lines.splice(
          lines.findIndex((line) => line.startsWith('{"table":"orders"')),
          1,
        )
        lines.splice(1, 0, order)
        return lines.join('\n')
      }),
    cause: 'the file is damaged or edited: its checksum does not match its contents',
  },
  {
    // Two files joined: what follows the first one's closing line is not part of what its checksum vouches for.
    name: 'lines after its closing line',
    file: () => variant('joined.jsonl', (text) => `${text}${text}`),
    cause: 'the file is damaged: lines follow its closing line',
  },
  {
    name: 'a newer format version',
    file: () => variant('newer.jsonl', (text) => text.replace('"formatVersion":1', '"formatVersion":2')),
    cause: "the file's format version 2 is newer than this petstore reads (1): upgrade petstore",
  },
  {
    name: 'secrets sealed with another WEBHOOK_SECRET_KEY',
    file: () => exported,
    key: randomBytes(32).toString('hex'),
    cause:
      "webhook endpoint 1's secret was encrypted with another WEBHOOK_SECRET_KEY than the one set: " +
      'set the key the source used',
  },
  {
    // A shop that ran without the variable (a key kept in its database), then with it: its newer secrets need it.
    name: 'secrets sealed with a WEBHOOK_SECRET_KEY that is not set, beside a key kept in the file',
    file: () =>
      resealed('stored-key.jsonl', (records) => {
        const key = randomBytes(32).toString('hex')
        const stored = `{"table":"service_secrets","row":{"name":"webhook-secret-key","value":"${key}"}}`
        const after = records.findLastIndex((line) => line.startsWith('{"table":"service_secrets"')) + 1
        return [...records.slice(0, after), stored, ...records.slice(after)]
      }),
    key: '',
    cause:
      "webhook endpoint 1's secret was encrypted with a WEBHOOK_SECRET_KEY, which is not set (the key kept in the " +
      'file does not open it): set the key the source used',
  },
  {
    // The checksum vouches for the lines before the closing line, not for the counts on it.
    name: 'counts on its closing line that are not the rows before it',
    file: () =>
      variant('miscounted.jsonl', (text) => {
        const lines = text.split('\n')
        const closing = JSON.parse(lines.at(-2) ?? '') as { counts: Record<string, number> }
        closing.counts.pets = (closing.counts.pets ?? 0) + 1
        lines[lines.length - 2] = JSON.stringify(closing)
        return lines.join('\n')
      }),
    cause: 'the file is damaged: pets has not the rows its count says',
  },
  {
    name: 'a missing file',
    file: () => join(directory, 'no-such-shop.jsonl'),
    cause: `no such file: ${join(directory, 'no-such-shop.jsonl')}`,
  },
]

const [edited] = REFUSALS as [(typeof REFUSALS)[number]]
const onPostgres = !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL'

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`petstore import into ${store} refuses`, { skip: store === 'postgres' && onPostgres }, () => {
    for (const refusal of REFUSALS) {
      it(`${refusal.name}, and changes nothing`, async () => {
        // SQLite: no database file yet, and none after. PostgreSQL: an empty schema, left without a table.
        const target = await createTestDatabase(store)
        databases.push(target)
        assert.equal(
          await refusedImport(target, refusal.file(), refusal.key),
          `petstore: import refused, nothing changed: ${refusal.cause}\n`,
        )
        if (store === 'sqlite') assert.equal(existsSync(fileURLToPath(target.url.replace(/^file:/, 'file://'))), false)
        else assert.deepEqual(await tablesIn(target), [])
      })
    }

    it(
      'an edited file into an existing SQLite file without a table, and leaves it so',
      {
        skip: store !== 'sqlite',
      },
      async () => {
        const target = await createTestDatabase(store)
        databases.push(target)
        new SqliteDatabase(target.url.replace(/^file:/, '')).close()
        assert.equal(
          await refusedImport(target, edited.file()),
          `petstore: import refused, nothing changed: ${edited.cause}\n`,
        )
        assert.deepEqual(await tablesIn(target), [])
      },
    )

    for (const [kind, make] of [
      ['of no bytes', (path: string) => writeFileSync(path, '')],
      [
        'in rollback-journal mode',
        (path: string) => {
          const handle = new SqliteDatabase(path)
          handle.pragma('user_version = 7')
          handle.close()
        },
      ],
    ] as const)
      it(
        `an edited file into an existing SQLite file ${kind}, and leaves every byte of it as it was`,
        { skip: store !== 'sqlite' },
        async () => {
          const target = await createTestDatabase(store)
          databases.push(target)
          const path = target.url.replace(/^file:/, '')
          make(path)
          const before = readFileSync(path)
          assert.equal(
            await refusedImport(target, edited.file()),
            `petstore: import refused, nothing changed: ${edited.cause}\n`,
          )
          assert.deepEqual(readFileSync(path), before)
          assert.deepEqual([existsSync(`${path}-wal`), existsSync(`${path}-shm`)], [false, false])
        },
      )

    it(
      'an edited file into a SQLite file in directories not made yet, and removes the directories it made',
      { skip: store !== 'sqlite' },
      async () => {
        const parent = makeTempDir()
        const target = { url: `file:${join(parent, 'new', 'deeper', 'petstore.db')}`, drop: async () => {} }
        assert.equal(
          await refusedImport(target, edited.file()),
          `petstore: import refused, nothing changed: ${edited.cause}\n`,
        )
        assert.deepEqual([existsSync(parent), existsSync(join(parent, 'new'))], [true, false])
      },
    )

    it('an edited file into an empty database already migrated, and leaves it as it was', async () => {
      const target = await migratedDatabase(store)
      const tables = await tablesIn(target)
      const empty = await shopContents(target.url, join(directory, `empty-${store}.jsonl`))
      assert.equal(
        await refusedImport(target, edited.file()),
        `petstore: import refused, nothing changed: ${edited.cause}\n`,
      )
      assert.deepEqual(await tablesIn(target), tables)
      assert.equal(await shopContents(target.url, join(directory, `empty-${store}-after.jsonl`)), empty)
    })

    it('a re-sealed file with two category names equal but for case, whatever name_key it gives', async () => {
      const target = await createTestDatabase(store)
      databases.push(target)
      const file = resealed(`categories-${store}.jsonl`, (records) => {
        const at = records.findIndex((line) => line.startsWith('{"table":"category_id_counter"'))
        records.splice(
          at,
          0,
          '{"table":"categories","row":{"id":900,"name":"Ferrets","name_key":"ferrets","version":1}}',
          '{"table":"categories","row":{"id":901,"name":"FERRETS","name_key":"not-its-key","version":1}}',
        )
        return records
      })
      const refusal = await refusedImport(target, file)
      assert.ok(refusal.startsWith(BREAKS_A_RULE), refusal)
      assert.match(
        refusal.slice(BREAKS_A_RULE.length),
        store === 'sqlite'
          ? /^UNIQUE constraint failed: categories\.name_key\n$/
          : /^duplicate key value violates unique constraint "[a-z_]+"\n$/,
      )
      if (store === 'postgres') assert.deepEqual(await tablesIn(target), [])
    })

    it('a re-sealed file with two rows of a table of one row', async () => {
      const target = await createTestDatabase(store)
      databases.push(target)
      const file = resealed(`two-marks-${store}.jsonl`, (records) =>
        records.flatMap((line) => (line.startsWith('{"table":"event_retention","row"') ? [line, line] : [line])),
      )
      assert.equal(await refusedImport(target, file), `${BREAKS_A_RULE}event_retention has more than its one row\n`)
      if (store === 'postgres') assert.deepEqual(await tablesIn(target), [])
    })

    it('a re-sealed file with a value of the wrong kind, named as damage', async () => {
      const target = await createTestDatabase(store)
      databases.push(target)
      const file = resealed(`text-id-${store}.jsonl`, (records) =>
        records.map((line) =>
          line.startsWith('{"table":"orders","row"') ? line.replace(/"id":(\d+)/, '"id":"$1"') : line,
        ),
      )
      assert.equal(
        await refusedImport(target, file),
        'petstore: import refused, nothing changed: the file is damaged: orders.id is not an integer\n',
      )
    })

    it('a re-sealed file with an order of a pet it does not hold', async () => {
      const target = await createTestDatabase(store)
      databases.push(target)
      const file = resealed(`orphan-${store}.jsonl`, (records) =>
        records.map((line) =>
          line.startsWith('{"table":"orders","row"') ? line.replace(/"pet_id":\d+/, '"pet_id":999') : line,
        ),
      )
      const refusal = await refusedImport(target, file)
      assert.ok(refusal.startsWith(BREAKS_A_RULE), refusal)
      assert.match(
        refusal.slice(BREAKS_A_RULE.length),
        store === 'sqlite'
          ? /^FOREIGN KEY constraint failed\n$/
          : /^insert or update on table "orders" violates foreign key constraint "[a-z_]+"\n$/,
      )
    })

    it('a database that already holds a shop, and changes nothing', async () => {
      const target = await createTestDatabase(store)
      databases.push(target)
      const first = await petstore(['import', exported], { DATABASE_URL: target.url, WEBHOOK_SECRET_KEY })
      assert.equal(first.code, 0, first.stderr)
      const held = await shopContents(target.url, join(directory, 'held.jsonl'))
      const again = await petstore(['import', exported], { DATABASE_URL: target.url, WEBHOOK_SECRET_KEY })
      assert.equal(again.code, 1)
      assert.equal(
        again.stderr.split('\n').slice(1).join('\n'),
        'petstore: import refused, nothing changed: ' +
          'the target database already holds a shop (pets has rows): import into an empty one\n',
      )
      assert.equal(await shopContents(target.url, join(directory, 'held-after.jsonl')), held)
    })
  })
}
