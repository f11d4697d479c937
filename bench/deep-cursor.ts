// Cursors deep in the collection, for the deep-page scenario. Cursors are HMAC-signed and cannot be forged,
// and walking 50,000 pages to obtain one legitimately would take longer than the benchmark itself. So the
// harness does what only a benchmark may: it reads the service's signing secret from the database
// (service_secrets, created by the service when it starts) and signs a cursor with the service's own codec,
// from the built service in dist/, the very code that will verify it.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { createCursorCodec } from '../src/pets/cursor.js'
import { ROOT } from './processes.js'
import type { BenchStore } from './seed.js'

const CURSOR_SECRET = 'cursor-hmac'
const CURSOR_SCOPE = 'pets'

/** Unfiltered cursors positioned after each of `afterIds`. */
export async function mintCursors(store: BenchStore, afterIds: number[]): Promise<string[]> {
  const secret = await store.readSecret(CURSOR_SECRET)
  if (!secret) throw new Error(`no ${CURSOR_SECRET} secret in the database: start the service once before minting cursors`)
  const modulePath = pathToFileURL(join(ROOT, 'dist', 'pets', 'cursor.js')).href
  const codecModule = (await import(modulePath)) as { createCursorCodec: typeof createCursorCodec }
  const codec = codecModule.createCursorCodec(secret, CURSOR_SCOPE)
  return afterIds.map((afterId) => codec.encode({ afterId, status: undefined }))
}

/** How many different deep pages the scenario asks for, and over how many of the last pets they spread. */
const DEEP_CURSORS = 256
const DEEP_WINDOW = 10_000

/**
 * The deep scenario's cursors: the first after id `pets − offset` (the page its check expects), the others
 * spread evenly over the last 10,000 pets. Asking for one page over and over would let a response cache
 * answer it, and the scenario would no longer say anything about the keyset walk at depth.
 */
export async function mintDeepCursors(store: BenchStore, pets: number, offset: number): Promise<string[]> {
  const last = pets - offset
  const first = Math.max(1, last - DEEP_WINDOW)
  const afterIds = Array.from({ length: DEEP_CURSORS }, (_, index) => (index === 0 ? last : first + Math.floor(((last - first) * index) / (DEEP_CURSORS - 1))))
  return mintCursors(store, afterIds)
}
