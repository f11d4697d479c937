// A request with many problems gets a bounded answer: at most 20 problems listed in `details`, then one entry
// counting the rest, a summary message built from those alone, long names shortened, and a bounded log line.
// 1,300 unknown query parameters (9 KB) used to produce a 125 KB body and a 48 KB log line.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { assertError } from '../../helpers/error-assert.js'
import { logEntries, startTestServer, type TestServer } from '../../helpers/server.js'

describe('validation errors are bounded', () => {
  let server: TestServer
  before(async () => {
    server = await startTestServer()
  })
  after(() => server.close())

  it('lists 20 of 1,300 unknown query parameters, then counts the rest', async () => {
    const names = Array.from({ length: 1300 }, (_, index) => `p${index}`)
    const response = await server.request(`/v1/pets?${names.map((name) => `${name}=1`).join('&')}`)
    const listed = names.slice(0, 20).map((name) => ({ path: `query/${name}`, message: 'is not a known parameter' }))
    const message =
      `Invalid request: ${listed.map((detail) => `${detail.path} ${detail.message}`).join('; ')}; and 1280 more ` +
      'problems in query'
    const requestId = await assertError(response, {
      status: 400,
      code: 'invalid_request',
      message,
      details: [...listed, { path: 'query', message: '1280 more problems not listed' }],
    })
    assert.deepEqual(loggedMessages(requestId), [message])
  })

  it('lists exactly 20 problems without a counting entry', async () => {
    const names = Array.from({ length: 20 }, (_, index) => `q${index}`)
    const body = (await (await server.request(`/v1/pets?${names.map((name) => `${name}=1`).join('&')}`)).json()) as {
      details: unknown[]
    }
    assert.deepEqual(
      body.details,
      names.map((name) => ({ path: `query/${name}`, message: 'is not a known parameter' })),
    )
  })

  function loggedMessages(requestId: string): string[] {
    return logEntries<Record<string, unknown>>(server)
      .filter((entry) => entry.reqId === requestId && entry.code === 'invalid_request')
      .map((entry) => String(entry.errorMessage))
  }

  it('shortens a long parameter name to 200 characters in details and message', async () => {
    const name = 'n'.repeat(5000)
    const shown = `query/${name}`.slice(0, 200) + '…'
    await assertError(await server.request(`/v1/pets?${name}=1`), {
      status: 400,
      code: 'invalid_request',
      message: `Invalid request: ${shown} is not a known parameter`,
      details: [{ path: shown, message: 'is not a known parameter' }],
    })
  })

  it('logs at most 1,000 characters of the message', async () => {
    const names = Array.from({ length: 25 }, (_, index) => `${index}`.padStart(300, 'x'))
    const response = await server.request(`/v1/pets?${names.map((name) => `${name}=1`).join('&')}`)
    const listed = names
      .slice(0, 20)
      .map((name) => ({ path: `query/${name}`.slice(0, 200) + '…', message: 'is not a known parameter' }))
    const message =
      `Invalid request: ${listed.map((detail) => `${detail.path} ${detail.message}`).join('; ')}; and 5 more ` +
      'problems in query'
    const requestId = await assertError(response, {
      status: 400,
      code: 'invalid_request',
      message,
      details: [...listed, { path: 'query', message: '5 more problems not listed' }],
    })
    assert.deepEqual(loggedMessages(requestId), [`${message.slice(0, 1000)}…`])
  })

  it('documents the bound in the Error schema of the OpenAPI document', async () => {
    type Details = { maxItems: number; description: string }
    const document = (await (await server.request('/v1/openapi.json', { auth: false })).json()) as {
      paths: Record<string, { get: { responses: Record<string, { $ref?: string }> } }>
      components: {
        responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>
        schemas: Record<string, { properties: { details: Details } }>
      }
    }
    // 400 is the shared InvalidRequest response, whose body is the Error schema.
    assert.equal(document.paths['/pets']?.get.responses['400']?.$ref, '#/components/responses/InvalidRequest')
    assert.equal(
      document.components.responses.InvalidRequest?.content['application/json']?.schema.$ref,
      '#/components/schemas/Error',
    )
    const details = document.components.schemas.Error?.properties.details
    assert.ok(details)
    assert.equal(details.maxItems, 21)
    assert.match(details.description, /At most 20 problems are listed; when more were found, one last entry/)
  })
})
