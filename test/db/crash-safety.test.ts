// Crash safety: `petstore serve` is killed with SIGKILL at a random moment while 50 clients send 1,000 creates,
// each with its own Idempotency-Key; then it is restarted and every one of the 1,000 requests is retried with
// the same key and body until it succeeds. Over ten rounds on the store of the pass: no acknowledged pet is
// lost or changed, no request created two pets, replays of acknowledged requests return the same pet, and
// (SQLite) the file passes PRAGMA integrity_check after every kill. The rounds run in two lanes at once, each
// on a database of its own, to keep the file within its time limit on a small machine.
import assert from 'node:assert/strict'
import { Agent, request as httpRequest } from 'node:http'
import { describe, it } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import { spawnServer, type ServerProcess } from '../helpers/process.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const KEY = 'crash-safety-key-0123456789'
const LANES = 2
const ROUNDS_PER_LANE = 5
const REQUESTS = 1000
const CLIENTS = 50
const SEED = 0x5eed

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}
interface NewPet {
  name: string
  categoryId: number
  status?: string
}

/** mulberry32: a small seeded generator, so that a failing run can be repeated with the same kill moments. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds))

/** Rows straight from the database, bypassing the service (SQLite opened read-only). `$1` is the parameter. */
async function queryRows<Row>(database: TestDatabase, query: string, parameter: string): Promise<Row[]> {
  if (TEST_STORE === 'sqlite') {
    const handle = new SqliteDatabase(database.url.replace(/^file:/, ''), { readonly: true, fileMustExist: true })
    try {
      return handle.prepare(query.replace('$1', '?')).all(parameter) as Row[]
    } finally {
      handle.close()
    }
  }
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query(query, [parameter])).rows as Row[]
  } finally {
    await client.end()
  }
}

async function storedPets(database: TestDatabase, prefix: string): Promise<Pet[]> {
  const rows = await queryRows<Pet>(
    database,
    'select id, name, category_id as "categoryId", status from pets where name like $1 order by id',
    `${prefix}%`,
  )
  // PostgreSQL's bigint arrives as text through a bare pg client.
  return rows.map((row) => ({ ...row, id: Number(row.id), categoryId: Number(row.categoryId) }))
}

function sqliteIntegrity(database: TestDatabase): string {
  const handle = new SqliteDatabase(database.url.replace(/^file:/, ''), { readonly: true, fileMustExist: true })
  try {
    return String(handle.pragma('integrity_check', { simple: true }))
  } finally {
    handle.close()
  }
}

interface Answer {
  status: number
  replayed: boolean
  text: string
}

// node:http with keep-alive rather than fetch: the clients cost the machine a good deal less CPU.
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS * 2 })

/** Rejects when the connection fails or breaks before the whole response has arrived. */
function post(server: ServerProcess, key: string, body: NewPet): Promise<Answer> {
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${server.baseUrl}/v1/pets`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'idempotency-key': key,
        },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            replayed: response.headers['idempotent-replayed'] === 'true',
            text,
          }),
        )
        response.on('error', reject)
        response.on('aborted', () => reject(new Error('response aborted')))
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}

/**
 * Sends the requests from CLIENTS concurrent clients until `stop()` says so; returns the 201s by index and every other
 * status.
 */
async function burst(
  server: ServerProcess,
  requests: { key: string; body: NewPet }[],
  onAcknowledged: (count: number) => void,
  stopped: () => boolean,
) {
  const acknowledged = new Map<number, Pet>()
  const refusals: number[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let index = next++; index < requests.length && !stopped(); index = next++) {
        const request = requests[index]
        if (!request) break
        let status: number
        let pet: Pet | undefined
        try {
          const answer = await post(server, request.key, request.body)
          status = answer.status
          if (status === 201) pet = JSON.parse(answer.text) as Pet
        } catch {
          continue // the process died before the whole response arrived: not acknowledged
        }
        if (!pet) {
          refusals.push(status)
          continue
        }
        acknowledged.set(index, pet)
        onAcknowledged(acknowledged.size)
      }
    }),
  )
  return { acknowledged, refusals }
}

/** Retries every request until it is answered 201; 409 (a key the dead process held) and 503 wait and retry. */
async function retryAll(server: ServerProcess, requests: { key: string; body: NewPet }[], context: string) {
  const answers = new Map<number, { pet: Pet; replayed: boolean }>()
  let waits = 0
  let next = 0
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let index = next++; index < requests.length; index = next++) {
        const request = requests[index]
        if (!request) break
        for (let attempt = 1; ; attempt++) {
          const answer = await post(server, request.key, request.body)
          if (answer.status === 201) {
            answers.set(index, { pet: JSON.parse(answer.text) as Pet, replayed: answer.replayed })
            break
          }
          assert.ok(
            answer.status === 409 || answer.status === 503,
            `${context}, retry of request ${index}: ${answer.status} ${answer.text}`,
          )
          assert.ok(attempt < 50, `${context}: request ${index} still refused after ${attempt} attempts`)
          waits++
          await sleep(200)
        }
      }
    }),
  )
  return { answers, waits }
}

/** A short lease, so that retries of keys the killed process held wait a second rather than ten. */
const SHORT_LEASE = { idempotencyLeaseSeconds: 1 }

async function runLane(lane: number, log: (line: string) => void): Promise<void> {
  const database = await createTestDatabase()
  // A rate limit high enough not to meddle.
  const env = {
    DATABASE_URL: database.url,
    PETSTORE_API_KEYS: KEY,
    RATE_LIMIT_PER_KEY: '1000000000',
  }
  const random = seededRandom(SEED + lane)
  let server = await spawnServer(env, SHORT_LEASE)
  try {
    for (let round = 0; round < ROUNDS_PER_LANE; round++) {
      const context = `lane ${lane} round ${round}`
      const prefix = `crash l${lane} r${round} #`
      const requests = Array.from({ length: REQUESTS }, (_, index) => ({
        key: `crash-${lane}-${round}-${index}`,
        body: {
          name: `${prefix}${index}`,
          categoryId: (index % 97) + 1,
          ...(index % 3 === 0 ? { status: 'pending' } : {}),
        },
      }))
      // The kill comes at a random moment 50 to 600 ms after the first acknowledgement, or earlier, once a
      // random share of the requests has been acknowledged: it lands in the middle of the burst, with writes
      // acknowledged and others in every stage of their transactions, however fast or slow the machine is.
      const killAfterMs = 50 + random() * 550
      const killAfterAcknowledged = Math.floor(REQUESTS * (0.2 + random() * 0.75))
      const victim = server
      let killed = false
      const kill = () => {
        if (!killed) victim.child.kill('SIGKILL')
        killed = true
      }
      let timer: NodeJS.Timeout | undefined
      const { acknowledged, refusals } = await burst(
        victim,
        requests,
        (count) => {
          timer ??= setTimeout(kill, killAfterMs)
          if (count >= killAfterAcknowledged) kill()
        },
        () => killed,
      )
      clearTimeout(timer)
      kill()
      await victim.exited
      // Unavailable (503, retry later) is the only refusal a healthy service may give a valid create under load.
      assert.deepEqual(
        refusals.filter((status) => status !== 503),
        [],
        `${context}: answers other than 201 and 503`,
      )
      if (TEST_STORE === 'sqlite')
        assert.equal(sqliteIntegrity(database), 'ok', `${context}: integrity_check after the kill`)
      const abandoned = await queryRows(
        database,
        "select idempotency_key from idempotency_keys where state = 'in_flight' and idempotency_key like $1",
        `crash-${lane}-${round}-%`,
      )

      const restarting = Date.now()
      server = await spawnServer({ ...env, MIGRATE_ON_START: 'false' }, SHORT_LEASE)
      const retrying = Date.now()
      const { answers, waits } = await retryAll(server, requests, context)
      const retried = Date.now() - retrying

      for (const [index, pet] of acknowledged) {
        assert.deepEqual(
          answers.get(index),
          { pet, replayed: true },
          `${context}: the retry of acknowledged request ${index} replays it`,
        )
      }
      const stored = await storedPets(database, prefix)
      const byName = new Map(stored.map((pet) => [pet.name, pet]))
      assert.equal(byName.size, stored.length, `${context}: no two pets share a name`)
      assert.equal(stored.length, REQUESTS, `${context}: exactly one pet per idempotency key`)
      for (const [index, { pet }] of answers) {
        assert.deepEqual(
          pet,
          { id: pet.id, status: 'available', ...requests[index]?.body },
          `${context}: request ${index} created what it asked for`,
        )
        assert.deepEqual(byName.get(pet.name), pet, `${context}: request ${index} is stored as it was answered`)
      }
      log(
        `${context}: killed after ${acknowledged.size}/${REQUESTS} acknowledged (${refusals.length} answered ` +
          `503; ${killAfterMs.toFixed(0)} ms after the first, ` +
          `cap ${killAfterAcknowledged}); ${abandoned.length} keys left in flight, ${waits} retries waited; lost ` +
          '0, duplicates 0; ' +
          `restart ${retrying - restarting} ms, 1,000 retries ${retried} ms`,
      )
    }
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
    await database.drop()
  }
}

describe(`crash safety on ${TEST_STORE}: kill -9 during 1,000 concurrent idempotent creates`, () => {
  it(`loses no acknowledged pet and duplicates none over ${LANES * ROUNDS_PER_LANE} kills`, async (t) => {
    const started = Date.now()
    try {
      await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(lane, (line) => t.diagnostic(line))))
    } finally {
      agent.destroy()
    }
    t.diagnostic(
      `${LANES * ROUNDS_PER_LANE} rounds on ${TEST_STORE} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
  })
})
