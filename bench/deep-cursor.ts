// Cursors deep in the collection, for the deep-page scenario. Cursors are HMAC-signed and cannot be forged,
// and walking 50,000 pages to obtain one legitimately would take longer than the benchmark itself. So the
// harness does what only a benchmark may: it reads the service's signing secret from the database
// (service_secrets, created by the service when it starts) and signs a cursor with the service's own codec,
// from the built service in dist/, the very code that will verify it.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { createCursorCodec } from '../src/http/cursor.js'
import { ROOT } from './processes.js'
import type { BenchStore } from './seed.js'

const CURSOR_SECRET = 'cursor-hmac'
const CURSOR_SCOPE = 'pets'

/** Unfiltered cursors positioned after each of `afterIds`. */
export async function mintCursors(store: BenchStore, afterIds: number[]): Promise<string[]> {
  const secret = await store.readSecret(CURSOR_SECRET)
  if (!secret)
    throw new Error(`no ${CURSOR_SECRET} secret in the database: start the service once before minting cursors`)
  const modulePath = pathToFileURL(join(ROOT, 'dist', 'http', 'cursor.js')).href
  const codecModule = (await import(modulePath)) as { createCursorCodec: typeof createCursorCodec }
  const codec = codecModule.createCursorCodec(secret, CURSOR_SCOPE)
  return afterIds.map((afterId) => codec.encode({ afterId, status: undefined }))
}

/**
 * How many different pages a cursor scenario asks for, and over how many pets they spread: four times as many
 * pages as the service's page cache holds (1,000), so that most requests run the keyset query itself.
 */
const WINDOW_CURSORS = 4096
const WINDOW_PETS = 10_000

export interface CursorWindow {
  cursors: string[]
  /** The position of the first cursor (the one a scenario's check uses): its page starts at the next id. */
  firstAfterId: number
}

/** `WINDOW_CURSORS` cursors, the first after id `first`, the others spread evenly up to `first + span`. */
async function mintWindowCursors(store: BenchStore, first: number, span: number): Promise<CursorWindow> {
  const afterIds = Array.from(
    { length: WINDOW_CURSORS },
    (_, index) => first + Math.floor((span * index) / (WINDOW_CURSORS - 1)),
  )
  return { cursors: await mintCursors(store, afterIds), firstAfterId: first }
}

/**
 * The cursor scenarios' cursors. Deep: over the last 10,000 pets, the first after id `pets − offset − 10,000`.
 * Early: over the first 10,000, the first after id 1. (Over fewer when the store is too small for that.) The two differ
 * only in depth, which is what the
 * "deep page costs the same as the first page" target asks about; asking for one page over and over would let
 * the page cache answer it, and say nothing about the keyset walk at all.
 */
export async function mintWindowedCursors(
  store: BenchStore,
  pets: number,
  offset: number,
): Promise<{ deep: CursorWindow; early: CursorWindow }> {
  // Every cursor is at least `offset` pets from the end, so that each of its pages is a full one.
  const span = Math.max(0, Math.min(WINDOW_PETS, pets - offset - 1))
  return {
    deep: await mintWindowCursors(store, pets - offset - span, span),
    early: await mintWindowCursors(store, 1, span),
  }
}
