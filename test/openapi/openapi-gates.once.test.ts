// The contract's locks: the committed document is exactly what the code generates, it passes the
// breaking-change gate against the 1.0.0 baseline, and the gate does fail on a removed operation, a new required
// request field and a narrowed type while additive changes and naming schemas pass. Also an outside tool's view:
// openapi-typescript generates named types from the committed document.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { breakingChanges, dereference, readAcceptances, BASELINE, CURRENT } from '../../scripts/openapi-breaking.js'
import { COMMITTED_DOCUMENT, generateDocument } from '../../scripts/write-openapi.js'
import { makeTempDir } from '../helpers/server.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json
const copy = (document: Json): Json => structuredClone(document)

describe('the committed OpenAPI document and its gates', () => {
  const baseline = read(BASELINE)
  const current = read(CURRENT)
  const accepted = readAcceptances()

  it('is exactly the document the code generates (npm run openapi:check)', async () => {
    assert.equal(readFileSync(COMMITTED_DOCUMENT, 'utf8'), await generateDocument(), 'run npm run openapi:write')
  })

  it('names no host of its own as a server: only the address the service listens on with no configuration', () => {
    assert.deepEqual(current.servers, [
      {
        url: 'http://127.0.0.1:8080/v1',
        description:
          'This instance, a local or development one (no production or staging server is configured): the ' +
          'address this document was fetched from.',
        'x-internal': true,
      },
    ])
  })

  it('fails when the only server is an instance whose base path moves', () => {
    const moved = copy(current)
    moved.servers[0].url = 'http://127.0.0.1:8080/v2'
    assert.deepEqual(
      breakingChanges(current, moved, []).map((change) => `${change.action} ${change.path}`),
      ['remove servers//v1'],
    )
  })

  it('breaks nothing in the 1.0.0 baseline but what openapi/accepted-breaking-changes.json records', () => {
    assert.deepEqual(breakingChanges(baseline, current, accepted), [])
    for (const acceptance of accepted) assert.ok(acceptance.reason.length > 40, `${acceptance.path} says why`)
  })

  it('fails on a removed operation', () => {
    const broken = copy(current)
    delete broken.paths['/store/orders/{orderId}'].delete
    assert.deepEqual(
      breakingChanges(baseline, broken, accepted).map((change) => `${change.action} ${change.path}`),
      ['remove paths//store/orders/{orderId}/delete'],
    )
  })

  it('fails on a new required request field', () => {
    const broken = copy(current)
    broken.components.schemas.NewPet.properties.tag = { type: 'string', maxLength: 32 }
    broken.components.schemas.NewPet.required.push('tag')
    const changes = breakingChanges(baseline, broken, accepted)
    assert.ok(
      changes.some(
        (change) => change.path === 'paths//pets/post/requestBody/content/application/json/schema/required/2',
      ),
      JSON.stringify(changes),
    )
  })

  it('fails on a narrowed type or range', () => {
    const narrowed = copy(current)
    narrowed.components.schemas.NewOrder.properties.quantity.maximum = 10
    assert.ok(
      breakingChanges(baseline, narrowed, accepted).some((change) =>
        change.path.endsWith('/requestBody/content/application/json/schema/properties/quantity/maximum'),
      ),
    )
    const retyped = copy(current)
    retyped.components.schemas.Pet.properties.id = { type: 'string' }
    const retypedChanges = breakingChanges(baseline, retyped, accepted)
    assert.ok(
      retypedChanges.some(
        (change) =>
          change.path === 'paths//pets/{petId}/get/responses/200/content/application/json/schema/properties/id/format',
      ),
      JSON.stringify(retypedChanges.slice(0, 5)),
    )
  })

  it('passes additive changes: a new optional request field, a new response property, a new operation', () => {
    const additive = copy(current)
    additive.components.schemas.NewPet.properties.tag = { type: 'string', maxLength: 32 }
    additive.components.schemas.Pet.properties.tag = { type: 'string' }
    additive.paths['/pets/{petId}/photos'] = {
      get: { ...additive.paths['/pets/{petId}'].get, operationId: 'listPetPhotos', deprecated: undefined },
    }
    assert.deepEqual(breakingChanges(current, additive, []), [])
  })

  it('does not count naming a schema as a change, but counts removing a name (a generated type goes)', () => {
    const inlined = dereference(current)
    assert.deepEqual(breakingChanges(inlined, current, []), [])
    assert.deepEqual(
      breakingChanges(current, inlined, []).map((change) => `${change.action} ${change.path}`),
      Object.keys(current.components.schemas).map((name) => `remove components/schemas/${name}`),
    )
  })

  it('fails the npm script with the breaking changes listed (npm run openapi:breaking)', async () => {
    const directory = makeTempDir()
    const broken = copy(current)
    delete broken.paths['/events/stream']
    writeFileSync(join(directory, 'broken.json'), JSON.stringify(broken))
    const run = promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'scripts/openapi-breaking.ts',
      BASELINE,
      join(directory, 'broken.json'),
    ])
    await assert.rejects(run, (error: { code?: number; stderr?: string }) => {
      assert.equal(error.code, 1)
      assert.match(
        String(error.stderr),
        /breaks openapi\/baseline-1\.0\.0\.json in 1 place\(s\):\n {2}remove paths\/\/events\/stream\/get\n/,
      )
      return true
    })
  })

  it('gives stock openapi-typescript optional defaulted request fields and receiver types for webhooks', async () => {
    // Default options: a property with a `default` would come out required (defaultNonNullable).
    const output = astToString(await openapiTS(new URL(`file://${join(process.cwd(), COMMITTED_DOCUMENT)}`)))
    const schema = (name: string) => new RegExp(`\n {8}${name}: [{]\n([^]*?)\n {8}[}];\n`).exec(output)?.[1] ?? ''
    assert.match(schema('NewPet'), /\n {12}status\?: components\["schemas"\]\["PetStatus"\];/)
    assert.match(schema('NewOrder'), /\n {12}quantity\?: number;/)
    assert.match(output, /\nexport interface webhooks \{\n {4}event: \{/)
    assert.match(output, /"application\/json": components\["schemas"\]\["Event"\];/)
  })

  it('gives openapi-typescript a named type for every schema (components["schemas"] is no longer never)', async () => {
    const output = astToString(await openapiTS(new URL(`file://${join(process.cwd(), COMMITTED_DOCUMENT)}`)))
    const schemas = /\n {4}schemas: \{\n([^]*?)\n {4}\};\n/.exec(output)?.[1] ?? ''
    const names = [...schemas.matchAll(/^ {8}(\w+): /gm)].map((match) => match[1])
    assert.deepEqual(names, Object.keys(current.components.schemas))
    for (const name of [
      'Pet',
      'NewPet',
      'Pets',
      'PetStatus',
      'PetPatch',
      'Error',
      'Order',
      'NewOrder',
      'OrderStatus',
      'Event',
    ])
      assert.ok(names.includes(name), name)
    // Operations use the named types.
    assert.match(output, /"application\/json": components\["schemas"\]\["NewPet"\];/)
    assert.match(output, /"application\/json": components\["schemas"\]\["Pet"\];/)
    assert.match(output, /\n {4}responses: \{\n[^]*?\n {8}Unauthorized: \{/)
  })
})
