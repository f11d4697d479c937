import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export function makeTempDir(): string {
  return mkdtempSync(join(tmpdir(), 'petstore-test-'))
}
