// The locked dependencies run on the Node.js versions package.json declares: `npm ci` on Node 20 printed
// EBADENGINE for cookie@2 and content-disposition@3 (Node 22 only, and ES modules that Node 20 before 20.19
// cannot require), both pulled in by Fastify's own packages. package.json "overrides" pins versions that
// support Node 20. .ci/run also fails when `npm ci` prints EBADENGINE. The supported lines are 20 and 24 (CI runs
// the suite on both); each line's first version must be accepted by every production dependency.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, it } from 'node:test'

// semver is a dependency of fastify (and of npm itself): the same range semantics npm applies to engines.
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean
  minVersion(range: string): { version: string } | null
}

interface LockedPackage {
  version?: string
  dev?: boolean
  engines?: { node?: string } | string[]
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockedPackage> }

/** Locked packages whose declared Node.js range excludes `nodeVersion`, as `path@version (range)`. */
function refusing(nodeVersion: string, include: (entry: LockedPackage) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && include(entry))
    .flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      return range && !semver.satisfies(nodeVersion, range) ? [`${path}@${entry.version ?? '?'} (${range})`] : []
    })
}

describe('engines of the locked dependencies', () => {
  it('every locked package accepts the Node.js running the tests (what npm checks for EBADENGINE)', () => {
    assert.deepEqual(
      refusing(process.version, () => true),
      [],
    )
  })

  it('every production dependency accepts the oldest Node.js package.json declares', () => {
    const oldest = semver.minVersion(manifest.engines.node)?.version
    assert.equal(oldest, '20.12.0')
    assert.deepEqual(
      refusing(oldest, (entry) => entry.dev !== true),
      [],
    )
  })

  it('package.json declares Node 20.12+ and 24, and every production dependency accepts 24.0.0', () => {
    const firsts = manifest.engines.node.split('||').map((range) => semver.minVersion(range)?.version)
    assert.deepEqual(firsts, ['20.12.0', '24.0.0'])
    assert.equal(semver.satisfies('22.0.0', manifest.engines.node), false)
    assert.deepEqual(
      refusing('24.0.0', (entry) => entry.dev !== true),
      [],
    )
  })
})
