// Micro-benchmark of SQLite's reads of one event-loop turn: the data version, then N lookups by id that missed
// the cache, each statement a read transaction of its own (before) or all of them in one (after:
// src/db/sqlite/read-snapshot-per-turn.ts). `npx tsx bench/sqlite-read-snapshot.ts [PETS]` seeds a fresh file
// of PETS pets (100000) on the service's schema, opens it as the service's reader does, and prints µs per
// lookup for a few turn sizes, each the median of five rounds. Wall-clock time: the saving is WAL's read lock,
// fcntl calls in the kernel, which an instruction count (bench/instructions.ts) does not see.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqlite } from '../src/db/sqlite.js'
import { sqlitePetJson } from '../src/db/sqlite/pet-json.js'
import { median } from './load.js'
import { markdownTable } from './report.js'
import { migrate, sqliteStore } from './seed.js'

const TURN_SIZES = [1, 2, 5, 10, 25]
const LOOKUPS_PER_ROUND = 100_000
const ROUNDS = 5

async function main(): Promise<void> {
  const pets = Number(process.argv[2] ?? 100_000)
  const directory = mkdtempSync(join(tmpdir(), 'sqlite-read-snapshot-'))
  const path = join(directory, 'pets.db')
  try {
    await migrate(`file:${path}`)
    await sqliteStore(path).seedTo(pets)
    // The service's own connections and pragmas: the writer stays open beside the reader, as in the service.
    const store = openSqlite(path, { mustExist: true })
    const reader = store.sqliteReader
    if (!reader) throw new Error('a file store has a reader')
    const lookup = sqlitePetJson(reader).pet
    const dataVersion = reader.prepare('pragma data_version').pluck()
    const begin = reader.prepare('begin')
    const commit = reader.prepare('commit')
    const randomId = () => 1 + Math.floor(Math.random() * pets)

    const turns = {
      before: (size: number) => {
        dataVersion.get()
        for (let index = 0; index < size; index++) lookup(randomId())
      },
      after: (size: number) => {
        begin.run()
        dataVersion.get()
        for (let index = 0; index < size; index++) lookup(randomId())
        commit.run()
      },
    }
    const microsPerLookup = (turn: (size: number) => void, size: number) => {
      const count = Math.ceil(LOOKUPS_PER_ROUND / size)
      const started = performance.now()
      for (let index = 0; index < count; index++) turn(size)
      return ((performance.now() - started) * 1000) / (count * size)
    }

    const rows: string[][] = []
    for (const size of TURN_SIZES) {
      microsPerLookup(turns.before, size)
      microsPerLookup(turns.after, size)
      const before: number[] = []
      const after: number[] = []
      // Interleaved, so that both see the same machine.
      for (let round = 0; round < ROUNDS; round++) {
        before.push(microsPerLookup(turns.before, size))
        after.push(microsPerLookup(turns.after, size))
      }
      const [was, is] = [median(before), median(after)]
      rows.push([String(size), was.toFixed(2), is.toFixed(2), (is / was).toFixed(2)])
    }
    await store.close()
    console.log(`SQLite, ${pets.toLocaleString('en-US')} pets, Node ${process.version}; µs per lookup by a random id`)
    console.log(markdownTable(['lookups per turn', 'a read transaction each', 'one per turn', 'ratio'], rows))
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

await main()
