// A model-based check of the write path against the event feed: a seeded random sequence of requests (pets,
// orders, categories; conditional writes, idempotent retries, refusals) is sent to the service and applied to a
// reference model (helpers/model/), and every answer must be the model's exactly. At the end the listings, every
// read, and the event feed replayed from the start must all be the model's shop. Run against one instance, and
// against two instances on one database with the requests alternating between them. The seed is printed;
// PETSTORE_MODEL_SEED sets another.
import { after, before, describe, it } from 'node:test'
import { startInstances, stopInstances } from '../helpers/instances.js'
import { checkFinalState, type Get } from '../helpers/model/final-checks.js'
import { ShopScript } from '../helpers/model/model-steps.js'
import { EtagLog, FirstAnswers, runStep, sendJson, type Send } from '../helpers/model/model-run.js'
import { modelSeed, seededRandom } from '../helpers/model/seeded-random.js'
import type { ServerProcess } from '../helpers/process.js'
import { startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../helpers/store.js'

const STEPS = 300
const SEED = modelSeed()
/** Two static keys: an Idempotency-Key belongs to the API key that sent it. */
const API_KEYS = [TEST_API_KEY, 'second-key-0123456789abcdef']
const KEYS_ENV = { PETSTORE_API_KEYS: API_KEYS.join(',') }

/** Runs the steps one at a time, spreading them over `baseUrls` in turn, then checks the final state. */
async function runModel(
  baseUrls: readonly string[],
  seed: number,
): Promise<{ etags: EtagLog; events: number; answers: string }> {
  const at = (index: number) => baseUrls[index % baseUrls.length] as string
  const send: Send = (index, request) => sendJson(at(index), API_KEYS, request)
  const script = new ShopScript(seededRandom(seed), { feedListedAtOnce: TEST_STORE === 'sqlite' })
  const etags = new EtagLog()
  const seen = { etags, firstAnswers: new FirstAnswers() }
  const tally = new Map<string, number>()
  for (let index = 0; index < STEPS; index++) {
    const step = script.next()
    await runStep(send, seed, index, step, seen)
    const answer = `${step.operation} ${step.expected.status}`
    tally.set(answer, (tally.get(answer) ?? 0) + 1)
  }
  // A last write: once its event is listed, every earlier change's is (events.md: numbered in commit order).
  await runStep(send, seed, STEPS, script.createPet('Last'), seen)
  let reads = 0
  const get: Get = (path, init) =>
    fetch(at(reads++) + path, { ...init, headers: { authorization: `Bearer ${TEST_API_KEY}` } })
  await checkFinalState(get, script.state, seed)
  const answers = [...tally]
    .sort()
    .map(([answer, count]) => `${answer} ×${count}`)
    .join(', ')
  return { etags, events: script.state.events.length, answers }
}

describe(`the write path against a reference model and the event feed on ${TEST_STORE} (seed ${SEED})`, () => {
  describe('one instance', () => {
    let server: TestServer
    before(async () => {
      server = await startTestServer({ env: KEYS_ENV })
    })
    after(() => server?.close())

    it(`${STEPS} requests answered as the model answers them; listings and the replayed feed are the model's \
shop`, async (t) => {
      t.diagnostic(`seed ${SEED} (PETSTORE_MODEL_SEED)`)
      const { etags, events, answers } = await runModel([server.baseUrl], SEED)
      t.diagnostic(`${events} events, ${etags.count} ETags seen; answers: ${answers}`)
    })
  })

  describe('two instances on one database, the requests alternating between them', () => {
    let database: TestDatabase | undefined
    let instances: ServerProcess[] = []
    before(async () => {
      database = await createTestDatabase()
      instances = await startInstances(database, { ...KEYS_ENV, LOG_LEVEL: 'warn' })
    })
    after(async () => {
      await stopInstances(instances)
      await database?.drop()
    })

    it(`${STEPS} requests answered as the model answers them, whichever instance answers; listings and the \
replayed feed are the model's shop`, async (t) => {
      // Another seed than the one instance's, derived from it: a second sequence, as reproducible.
      const seed = SEED + 1
      t.diagnostic(`seed ${seed} (PETSTORE_MODEL_SEED + 1)`)
      const { etags, events, answers } = await runModel(
        instances.map((instance) => instance.baseUrl),
        seed,
      )
      t.diagnostic(`${events} events, ${etags.count} ETags seen; answers: ${answers}`)
    })
  })
})
