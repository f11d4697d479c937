// A PostgreSQL role that may not create tables in its schema, as `createdb -U postgres DB` and a role of the
// service's own leave it from PostgreSQL 15 on: petstore migrate and petstore import say so, and how to grant it,
// instead of the driver's "permission denied for schema public" or, inside an import's transaction, "current
// transaction is aborted".
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { runCli } from '../helpers/process.js'
import { runOnPostgresServer } from '../helpers/store.js'
import { makeTempDir } from '../helpers/temp.js'

const directory = makeTempDir()
const serverUrl = process.env.TEST_DATABASE_URL ?? ''

/** stderr after the line naming the database. */
const refusal = (stderr: string) => stderr.split('\n').slice(1).join('\n')

describe('a PostgreSQL role that may not create tables', () => {
  // A database owned by the administrator, as `createdb -U postgres` leaves it, and a role of its own: from
  // PostgreSQL 15 on such a role may not create tables in public (revoked here for every version).
  const name = `petstore_no_create_${randomBytes(6).toString('hex')}`
  const url = () => Object.assign(new URL(serverUrl), { username: name, pathname: `/${name}` }).toString()
  const inDatabase = async (text: string) => {
    const client = new pg.Client({
      connectionString: Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString(),
    })
    await client.connect()
    await client.query(text)
    await client.end()
  }
  const shop = join(directory, 'shop-for-a-role.jsonl')
  before(async () => {
    await runOnPostgresServer(`create role ${name} login`, serverUrl)
    await runOnPostgresServer(`create database ${name}`, serverUrl)
    await inDatabase('revoke create on schema public from public')
    const source = `file:${join(directory, 'role-source.db')}`
    assert.equal((await runCli(['migrate'], { DATABASE_URL: source })).code, 0)
    assert.equal((await runCli(['export', shop], { DATABASE_URL: source })).code, 0)
  })
  after(async () => {
    await runOnPostgresServer(`drop database if exists ${name} with (force)`, serverUrl)
    await runOnPostgresServer(`drop role if exists ${name}`, serverUrl)
  })

  const refused =
    `the role ${name} may not create tables in schema public, where petstore's are not all in place yet: make the ` +
    `role the database's owner (createdb -O ${name}), or GRANT CREATE ON SCHEMA public TO ${name}\n`

  it('petstore migrate says so and how to grant it, not "permission denied for schema public"', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: url() })
    assert.deepEqual(
      { code: result.code, refusal: refusal(result.stderr) },
      { code: 1, refusal: `petstore: ${refused}` },
    )
  })

  it('petstore import says the same, not "current transaction is aborted", and changes nothing', async () => {
    const result = await runCli(['import', shop], { DATABASE_URL: url() })
    assert.deepEqual(
      { code: result.code, refusal: refusal(result.stderr) },
      { code: 1, refusal: `petstore: import refused, nothing changed: ${refused}` },
    )
    const client = new pg.Client({ connectionString: url() })
    await client.connect()
    const { rows } = await client.query("select count(*)::int as tables from pg_tables where schemaname = 'public'")
    await client.end()
    assert.deepEqual(rows, [{ tables: 0 }])
  })
})
