// The gate scripts (write-openapi --check, openapi-breaking) run their check only when run, not when a test
// imports them: that decision must hold for any path, or CI would pass a gate that checked nothing.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'

const directory = mkdtempSync(join(tmpdir(), 'petstore is-main '))
after(() => rmSync(directory, { recursive: true, force: true }))

function run(script: string): { status: number | null; stdout: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 30_000 })
  return { status: result.status, stdout: result.stdout }
}

describe('isMain, which decides whether a gate script runs its check', () => {
  copyFileSync('scripts/is-main.ts', join(directory, 'is-main.ts'))
  writeFileSync(
    join(directory, 'gate.ts'),
    "import { isMain } from './is-main.ts'\nconsole.log(`main: ${isMain(import.meta.url)}`)\n",
  )
  writeFileSync(join(directory, 'importer.ts'), "import './gate.ts'\n")
  symlinkSync(join(directory, 'gate.ts'), join(directory, 'linked gate.ts'))

  it('is true for the script run, from a path with a space', () => {
    assert.deepEqual(run(join(directory, 'gate.ts')), { status: 0, stdout: 'main: true\n' })
  })

  it('is true for the script run through a symlink', () => {
    assert.deepEqual(run(join(directory, 'linked gate.ts')), { status: 0, stdout: 'main: true\n' })
  })

  it('is false for the script imported by another', () => {
    assert.deepEqual(run(join(directory, 'importer.ts')), { status: 0, stdout: 'main: false\n' })
  })
})
