// npm run bench:move: moving a large shop. A SQLite shop of N pets (default 1,000,000) with a pet.created event
// per pet is exported, imported into PostgreSQL (with --postgres URL), exported from there and imported into
// SQLite again, each by the shipped command (dist/bundle/cli.js) as an operator runs it. Reported per step:
// wall time, the command's peak resident memory (GNU time, /usr/bin/time), the file's size.
//
//   npm run bench:move -- [--pets N] [--postgres postgres://…] [--dir DIRECTORY]
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import SqliteDatabase from 'better-sqlite3'
import { CLI, ROOT, installCleanup, makeTempDirectory, startWatchdog } from './processes.js'
import { createStore, type BenchStore } from './seed.js'

interface Step {
  step: string
  seconds: number
  peakMiB: number
}

/**
 * Runs `petstore ARGS` against `databaseUrl`, measuring its wall time and its peak resident memory: the kernel's
 * own high-water mark, as GNU time reports it once the command has ended (a sampler would miss short peaks).
 */
async function timed(step: string, args: string[], databaseUrl: string): Promise<Step> {
  const started = performance.now()
  const child = spawn('/usr/bin/time', ['-f', 'peak-kib %M', process.execPath, CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let errors = ''
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  const peakKiB = /^peak-kib (\d+)$/m.exec(errors)?.[1]
  if (code !== 0 || peakKiB === undefined) throw new Error(`${step} failed (${code}): ${errors}`)
  return { step, seconds: (performance.now() - started) / 1000, peakMiB: Number(peakKiB) / 1024 }
}

/** One pet.created event per pet, as the service would have written them, straight in SQL. */
function seedEvents(path: string): void {
  const database = new SqliteDatabase(path)
  try {
    database.pragma('synchronous = OFF')
    database.exec(`
      insert into events (type, occurred_at, data)
      select 'pet.created', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
        json_object('pet', json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status))
      from pets order by id;
      update webhook_fan_out set position = (select max(id) from events);`)
    database.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    database.close()
  }
}

const mebibytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pets: { type: 'string', default: '1000000' },
      postgres: { type: 'string' },
      dir: { type: 'string' },
    },
    strict: true,
  })
  const pets = Number(values.pets)
  if (!Number.isSafeInteger(pets) || pets < 1) throw new Error('--pets takes a positive integer')
  installCleanup()
  startWatchdog(30)
  const directory = makeTempDirectory(values.dir)
  const sqlite = (name: string) => createStore({ directory, name, postgresUrl: undefined })
  const source = await sqlite('source')
  const seeded = await source.seedTo(pets)
  seedEvents(source.sqlitePath ?? '')
  process.stderr.write(`bench: seeded ${pets} pets and their events in ${(seeded.milliseconds / 1000).toFixed(1)} s\n`)

  const steps: Step[] = []
  const first = join(directory, 'from-sqlite.jsonl')
  steps.push(await timed('export from SQLite', ['export', first], source.databaseUrl))
  const sizes = [statSync(first).size]
  let middle: BenchStore | undefined
  let second = first
  if (values.postgres) {
    middle = await createStore({ directory, name: 'middle', postgresUrl: values.postgres })
    steps.push(await timed('import into PostgreSQL', ['import', first], middle.databaseUrl))
    second = join(directory, 'from-postgres.jsonl')
    steps.push(await timed('export from PostgreSQL', ['export', second], middle.databaseUrl))
    sizes.push(statSync(second).size)
  }
  const target = await sqlite('target')
  steps.push(await timed('import into SQLite', ['import', second], target.databaseUrl))
  await middle?.drop()

  console.log(`\nMoving a shop of ${pets} pets and ${pets} events (file ${sizes.map(mebibytes).join(', ')}):\n`)
  console.log('| step | wall time | peak RSS |')
  console.log('| --- | ---: | ---: |')
  for (const { step, seconds, peakMiB } of steps)
    console.log(`| ${step} | ${seconds.toFixed(1)} s | ${peakMiB.toFixed(0)} MiB |`)
}

await main()
