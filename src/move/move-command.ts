// The export and import commands as the operator sees them: progress on a terminal, one line when done, and a
// refusal as one line naming its cause (the command exits 1). SIGTERM or SIGINT stops either cleanly: no partial
// file, no database file the import created, and one line saying so; a second signal ends the process at once.
import { existsSync, statSync } from 'node:fs'
import type { Config } from '../config.js'
import { describeDatabase } from '../db/database-errors.js'
import { endBySignal } from '../end-by-signal.js'
import { exportShop, type MoveProgress } from './export.js'
import { importShop } from './import.js'

/**
 * Progress on stderr, overwritten in place, only when a person watches it there. `done` clears the line, so that
 * the line that follows (done, interrupted or refused) starts at the left edge; it may be called again.
 */
function terminalProgress(verb: string): MoveProgress {
  if (!process.stderr.isTTY) return { rows: () => {}, done: () => {} }
  let shown = Number.NEGATIVE_INFINITY
  let onScreen = false
  return {
    rows(table, count) {
      const now = performance.now()
      if (now - shown < 200) return
      shown = now
      onScreen = true
      process.stderr.write(`\rpetstore: ${verb} ${table}: ${count} rows\u001b[K`)
    },
    done() {
      if (onScreen) process.stderr.write('\r\u001b[K')
      onScreen = false
    },
  }
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0)
const SIGNALS = ['SIGTERM', 'SIGINT'] as const

/** A second signal ends the process at once, by that signal (endBySignal). */
function endAtOnce(signal: NodeJS.Signals): void {
  for (const each of SIGNALS) process.off(each, endAtOnce)
  endBySignal(signal)
}

/** Runs `work` with a signal aborted by the first SIGTERM or SIGINT; the error then says which came. */
async function stoppable<T>(
  command: 'export' | 'import',
  interrupted: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController()
  let received: string | undefined
  const stop = (signal: NodeJS.Signals) => {
    for (const each of SIGNALS) process.off(each, stop).once(each, endAtOnce)
    received = signal
    controller.abort(new Error(signal))
  }
  for (const signal of SIGNALS) process.once(signal, stop)
  try {
    return await work(controller.signal)
  } catch (error) {
    if (!received) throw error
    throw new Error(`${command} interrupted by ${received}${interrupted}`, { cause: error })
  } finally {
    for (const signal of SIGNALS) process.off(signal, stop).off(signal, endAtOnce)
  }
}

/**
 * Names of this process's standard output. When the shell sends it into a regular file (`> FILE`, `>> LOG`) they
 * name that file, which an export must write into as `-` does: replacing it would refuse a log that is not an
 * export, or rename a file over /dev/stdout.
 */
const STANDARD_OUTPUT = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1'])

export async function moveShop(command: 'export' | 'import', config: Config, named: string): Promise<void> {
  const file = command === 'export' && STANDARD_OUTPUT.has(named) ? '-' : named
  if (command === 'export') {
    // A named pipe or a device is written into as it is: what it received is not a file left behind, nor is its
    // mode the export's to set.
    const intoFile = file !== '-' && (!existsSync(file) || statSync(file).isFile())
    const progress = terminalProgress('exporting')
    const counts = await stoppable(command, intoFile ? ': no file written' : '', (signal) =>
      exportShop(config.database, file, progress, signal),
    ).finally(() => progress.done())
    const where = file === '-' ? 'stdout' : intoFile ? `${file} (mode 0600: it holds secrets, keep it safe)` : file
    console.error(`petstore: exported ${total(counts)} rows (${counts.pets ?? 0} pets) to ${where}`)
    return
  }
  let counts: Record<string, number>
  const progress = terminalProgress('importing')
  try {
    counts = await stoppable(command, ', nothing changed', (signal) =>
      importShop(config, file, progress, signal),
    ).finally(() => progress.done())
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('import interrupted')) throw error
    // The transaction rolled back, and a database file the import created is removed: the target is as it was.
    throw new Error(`import refused, nothing changed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  console.error(
    `petstore: imported ${total(counts)} rows (${counts.pets ?? 0} pets) into ${describeDatabase(config.database)}`,
  )
}
