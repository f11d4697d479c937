// The export and import commands as the operator sees them: progress on a terminal, one line when done, and a
// refusal as one line naming its cause (the command exits 1).
import type { Config } from '../config.js'
import { describeDatabase } from '../db/database-errors.js'
import { exportShop, type MoveProgress } from './export.js'
import { importShop } from './import.js'

/** Progress on stderr, overwritten in place, only when a person watches it there. */
function terminalProgress(verb: string): MoveProgress {
  if (!process.stderr.isTTY) return { rows: () => {}, done: () => {} }
  let shown = 0
  return {
    rows(table, count) {
      const now = Date.now()
      if (now - shown < 200) return
      shown = now
      process.stderr.write(`\rpetstore: ${verb} ${table}: ${count} rows\u001b[K`)
    },
    done: () => process.stderr.write('\r\u001b[K'),
  }
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0)

export async function moveShop(command: 'export' | 'import', config: Config, file: string): Promise<void> {
  if (command === 'export') {
    const counts = await exportShop(config.database, file, terminalProgress('exporting'))
    const where = file === '-' ? 'stdout' : `${file} (mode 0600: it holds secrets, keep it safe)`
    console.error(`petstore: exported ${total(counts)} rows (${counts.pets ?? 0} pets) to ${where}`)
    return
  }
  let counts: Record<string, number>
  try {
    counts = await importShop(config, file, terminalProgress('importing'))
  } catch (error) {
    // The transaction rolled back, and a database file the import created is removed: the target is as it was.
    throw new Error(`import refused, nothing changed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  console.error(
    `petstore: imported ${total(counts)} rows (${counts.pets ?? 0} pets) into ${describeDatabase(config.database)}`,
  )
}
