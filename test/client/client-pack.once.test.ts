// The packed @petstore/client works where a user installs it: `npm pack` builds and packs it, a fresh ESM
// project installs the tarball (its dependencies from the npm cache `npm ci` filled), Node imports it and calls
// the real service with it, and TypeScript finds its types there.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { makeTempDir, startTestServer, TEST_API_KEY, type TestServer } from '../helpers/server.js'

const REPOSITORY = join(import.meta.dirname, '..', '..')
const TSC = join(REPOSITORY, 'node_modules', 'typescript', 'bin', 'tsc')

interface Outcome {
  code: number | null
  stdout: string
  stderr: string
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Outcome> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

function succeeded(outcome: Outcome, what: string): string {
  assert.equal(outcome.code, 0, `${what} failed:\n${outcome.stdout}\n${outcome.stderr}`)
  return outcome.stdout
}

const USER_SCRIPT = `
import { createPetstoreClient, PetstoreError } from '@petstore/client'
const client = createPetstoreClient({ baseUrl: process.env.PETSTORE_URL, apiKey: process.env.PETSTORE_KEY })
const { pet } = await client.pets.create({ name: 'Packed', categoryId: 5 })
const listed = []
for await (const each of client.pets.listAll()) listed.push(each)
const missing = await client.orders.get(424242).catch((error) => error)
console.log(JSON.stringify({ pet, listed, missing: [missing instanceof PetstoreError, missing.status, missing.code] }))
`

const USER_TYPES = `
import { createPetstoreClient, type Pet } from '@petstore/client'
const client = createPetstoreClient({ baseUrl: 'https://petstore.example.com/v1', apiKey: 'pst_example' })
export const created: Promise<{ pet: Pet; etag: string }> = client.pets.create({ name: 'Rex', categoryId: 1 })
// @ts-expect-error categoryId is a number
void client.pets.create({ name: 'Rex', categoryId: '1' })
`

describe('@petstore/client packed', () => {
  let server: TestServer
  let project: string
  let packed: { name: string; files: { path: string }[] }
  before(async () => {
    server = await startTestServer()
    const destination = makeTempDir()
    // As client/README.md tells a user, from the repository root; prepack builds dist/ first.
    const output = succeeded(
      await run('npm', ['pack', '-w', 'client', '--json', '--pack-destination', destination], { cwd: REPOSITORY }),
      'npm pack -w client',
    )
    const [entry] = JSON.parse(output.slice(output.indexOf('['))) as {
      filename: string
      name: string
      files: { path: string }[]
    }[]
    assert.ok(entry)
    packed = entry
    project = makeTempDir()
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'petstore-client-user', private: true, type: 'module' }),
    )
    const tarball = join(destination, entry.filename)
    let install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project })
    // A cache without some dependency (npm ci not run on this machine yet) may still have the registry.
    if (install.code !== 0)
      install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project })
    succeeded(install, 'npm install of the tarball')
  })
  after(() => server.close())

  it('packs the built code, its types, the README and the licence, and nothing of the sources', () => {
    const paths = packed.files.map((file) => file.path).sort()
    assert.equal(packed.name, '@petstore/client')
    for (const path of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/generated/petstore-v1.d.ts',
    ])
      assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`)
    assert.deepEqual(
      paths.filter((path) => !path.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(path)),
      [],
    )
    const installed = readdirSync(join(project, 'node_modules', '@petstore', 'client'))
    for (const name of ['package.json', 'README.md', 'LICENSE', 'dist'])
      assert.ok(installed.includes(name), `${name} installed`)
  })

  it('imports in a fresh ESM project and calls the service', async () => {
    writeFileSync(join(project, 'use.js'), USER_SCRIPT)
    const output = succeeded(
      await run(process.execPath, ['use.js'], {
        cwd: project,
        env: { PETSTORE_URL: `${server.baseUrl}/v1`, PETSTORE_KEY: TEST_API_KEY },
      }),
      'the user script',
    )
    const result = JSON.parse(output) as { pet: { id: number }; listed: unknown[]; missing: unknown[] }
    assert.deepEqual(result, {
      pet: { id: result.pet.id, name: 'Packed', categoryId: 5, status: 'available' },
      listed: [{ id: result.pet.id, name: 'Packed', categoryId: 5, status: 'available' }],
      missing: [true, 404, 'not_found'],
    })
  })

  it('gives a TypeScript project its types', async () => {
    writeFileSync(join(project, 'use.ts'), USER_TYPES)
    // A browser project's settings: no Node.js types, so nothing in the client may need them.
    const compilerOptions = {
      noEmit: true,
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022', 'dom'],
      types: [],
    }
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['use.ts'] }))
    succeeded(await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project }), 'tsc in the user project')
  })
})
