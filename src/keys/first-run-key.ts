// The first-run key on standard output, where the operator reads it once. A key the output could not take is
// withdrawn: kept, it would be a working key nobody has seen, and it would keep every later start from printing
// another (they print one only while no key is stored).
import type { DataAccess } from '../db/database.js'
import { failureName, writeToStandardOutput } from './standard-output.js'
import { deleteUnusedApiKey } from './key.repository.js'

export function firstRunMessage(key: string): string {
  return (
    '\nFirst run: created an API key. It is shown only this once; store it now:\n\n' +
    `    ${key}\n\n` +
    'Use it as "Authorization: Bearer <key>". Create more with: npx petstore keys create --name NAME\n\n'
  )
}

export interface FirstRunKeyShown {
  /**
   * For the shutdown, before the store closes: withdraws the key if standard output has not taken it yet (a reader
   * that took nothing since the start). The process would end with the write still waiting, and the key unseen.
   */
  withdrawUnlessShown(): Promise<void>
}

/**
 * Shows the first-run key, or withdraws it and says so on standard error when it cannot be shown. Never throws: the
 * service is listening by now, and keeps serving either way.
 */
export function showFirstRunKey(data: DataAccess, issued: { key: string; id: number }): FirstRunKeyShown {
  let decided = false
  const written = writeToStandardOutput(firstRunMessage(issued.key)).then(async (failure) => {
    if (decided) return
    decided = true
    if (failure) await withdraw(data, issued.id, `could not be written to standard output (${failureName(failure)})`)
  })
  return {
    async withdrawUnlessShown() {
      if (decided) return written
      decided = true
      await withdraw(data, issued.id, 'was not taken from standard output before the service stopped')
    },
  }
}

async function withdraw(data: DataAccess, id: number, what: string): Promise<void> {
  const unwritten = `the first-run API key ${what}`
  try {
    await data.transaction((trx) => deleteUnusedApiKey(trx, id))
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    console.error(
      `petstore: warning: ${unwritten}, nor withdrawn (${reason}): revoke it with petstore keys revoke ${id}`,
    )
    return
  }
  console.error(
    `petstore: warning: ${unwritten}; it was withdrawn: start again with standard output readable to get one, ` +
      'or create one with petstore keys create --name NAME',
  )
}
