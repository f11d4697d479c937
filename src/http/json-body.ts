// The application/json body parser. Fastify's own parser (secure-json-parse: refuses __proto__ and
// constructor.prototype keys) reads the text; then every number in it is checked, because JSON.parse
// rounds silently: 9007199254740993 would become 9007199254740992 and 1.0000000000000001 would become 1.
import type { FastifyInstance } from 'fastify'
import { ApiError } from './errors.js'

// Strings are matched first so that digits inside them are skipped.
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g
const PLAIN_INTEGER = /^-?\d+$/

/** Returns the first number literal that would not be read exactly as written, if any. */
export function findInexactNumber(json: string): string | undefined {
  for (const [token] of json.matchAll(STRING_OR_NUMBER)) {
    if (token.startsWith('"')) continue
    const value = Number(token)
    if (!Number.isFinite(value)) return token
    if (Number.isInteger(value) && !(PLAIN_INTEGER.test(token) && Number.isSafeInteger(value))) return token
  }
  return undefined
}

/** Says why a body Fastify's parser refused is not acceptable: broken JSON, or a prototype-poisoning key. */
function unreadableBody(body: string): ApiError {
  try {
    JSON.parse(body)
  } catch {
    return new ApiError('invalid_request', 'The request body is not valid JSON.')
  }
  return new ApiError('invalid_request', 'The request body contains a forbidden property name (__proto__, or constructor with prototype).')
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  // Fastify parses text/plain bodies by default; the API takes JSON only, so anything else is a 415.
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Some clients label every request JSON, bodiless DELETEs and actions included: for an operation that takes
    // no body, an empty one is simply no body (the operation refuses one that is not empty).
    if (body === '' && request.routeOptions.schema?.body === undefined) return done(null, undefined)
    parse(request, body as string, (error, value) => {
      if (error) return done((error as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? unreadableBody(body as string) : error, undefined)
      const inexact = findInexactNumber(body as string)
      if (inexact !== undefined) {
        const shown = inexact.length > 40 ? `${inexact.slice(0, 40)}…` : inexact
        return done(new ApiError('invalid_request',
          `The number ${shown} cannot be read exactly: integers are written without fraction or exponent and lie between -9007199254740991 and 9007199254740991.`), undefined)
      }
      done(null, value)
    })
  })
}
