// The application/json body parser. The body is read as bytes and must be well-formed UTF-8 (a declared
// charset other than utf-8 is a 415): nothing is replaced by U+FFFD behind the client's back. Fastify's own
// parser (secure-json-parse: refuses __proto__ and constructor.prototype keys) then reads the text, and one
// more pass (json-scan.ts) refuses what JSON.parse would accept silently: numbers it would round, and keys
// given twice in one object.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../errors/errors.js'
import { findJsonProblem, type JsonProblem } from './json-scan.js'
import { acceptedMediaTypes, isOneMediaType, mediaTypeRefusal, unsupportedCharset } from './media-type.js'
import { decodeUtf8, firstInvalidUtf8Offset } from './utf8.js'
import { hasNoBody, UNREAD_BODY } from './refuse-body.js'
import { MAX_DETAIL_PATH_LENGTH } from '../validation/validation-details.js'

const SHOWN_LENGTH = 40

function shorten(text: string, length = SHOWN_LENGTH): string {
  return text.length > length ? `${text.slice(0, length)}…` : text
}

/** A `details` path into the body, bounded as validation's are (a key may be kilobytes long). */
const bodyPath = (pointer: string) => shorten(`body${pointer}`, MAX_DETAIL_PATH_LENGTH)

/** Says why a body Fastify's parser refused is not acceptable: broken JSON, or a prototype-poisoning key. */
function unreadableBody(body: string): ApiError {
  try {
    JSON.parse(body)
  } catch {
    return new ApiError('invalid_request', 'The request body is not valid JSON.')
  }
  return new ApiError(
    'invalid_request',
    'The request body contains a forbidden property name (__proto__, or constructor with prototype).',
  )
}

function refusal(problem: JsonProblem): ApiError {
  if (problem.kind === 'inexact-number') {
    return new ApiError(
      'invalid_request',
      `The number ${shorten(problem.literal)} cannot be read exactly: integers are written without fraction or ` +
        'exponent and lie between -9007199254740991 and 9007199254740991.',
      { details: [{ path: bodyPath(problem.pointer), message: 'is a number that cannot be read exactly' }] },
    )
  }
  return new ApiError(
    'invalid_request',
    `The request body gives the key ${shorten(JSON.stringify(problem.key))} twice in the same object (at ` +
      `${shorten(problem.pointer)}); each key may appear once.`,
    { details: [{ path: bodyPath(problem.pointer), message: 'is a duplicate key' }] },
  )
}

function notUtf8(bytes: Buffer): ApiError {
  return new ApiError(
    'invalid_request',
    `The request body is not valid UTF-8: the byte at offset ${firstInvalidUtf8Offset(bytes)} does not start a ` +
      'well-formed sequence ' +
      '(a stray or truncated byte, an overlong form or an encoded surrogate). JSON bodies must be UTF-8.',
  )
}

/**
 * A Content-Encoding other than identity (gzip, br, …): the body would have to be decoded to mean what it says,
 * and the service does not decode, so it refuses rather than read the coded bytes as JSON (RFC 9110 section
 * 8.4.1; RFC 7694: 415 with the codings it accepts).
 */
function contentCoding(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  return codings.length > 0 ? codings.join(', ') : undefined
}

function codedBody(coding: string): ApiError {
  return new ApiError(
    'unsupported_media_type',
    `Content-Encoding ${shorten(coding)} is not supported: send the body without a content coding (identity).`,
    { headers: { 'accept-encoding': 'identity' } },
  )
}

/**
 * The 415 a body gets whatever it holds, decided on the headers alone: its media type is not one the route takes,
 * or its coding or charset is not one the service reads. Also asked before 100 Continue, so that a client that
 * waits for it before sending the body gets the 415 instead and never uploads it.
 */
export function refusalOnHeaders(request: FastifyRequest, parsedAs?: string): ApiError | undefined {
  const contentType = request.headers['content-type']
  if (contentType === undefined) return undefined
  // An operation that takes no body refuses one whatever its headers say (as the parsers below decide).
  if (request.routeOptions.schema?.body === undefined) return undefined
  const accepted = acceptedMediaTypes(request)
  // A parser knows the media type it was chosen for; before 100 Continue, it is read from the header.
  const mediaType = parsedAs ?? contentType.split(';', 1)[0]?.trim().toLowerCase() ?? ''
  if (!accepted.includes(mediaType)) return mediaTypeRefusal(request)
  const coded = contentCoding(request.headers['content-encoding'])
  if (coded !== undefined) return codedBody(coded)
  const charset = unsupportedCharset(contentType)
  if (charset === undefined) return isOneMediaType(contentType) ? undefined : mediaTypeRefusal(request)
  return new ApiError(
    'unsupported_media_type',
    `The request body must be UTF-8 JSON; charset=${shorten(charset)} is not supported. Send Content-Type: ` +
      `${mediaType} (charset=utf-8 may be added).`,
  )
}

/**
 * Where no body is taken, its Content-Type is dropped before Fastify reads it (called by the first hook of every
 * request, first-hook.ts, rather than as a hook of its own). A path no route serves reads no body at all: it is
 * answered (401 without a key, under the API; then 404 or 405) as without one, never 413 or 415 before
 * authentication, which would tell a client without a key which paths exist and escape the rate limit of such
 * clients. An operation without a body refuses one unread (400, refuse-body.ts), or a JSON one over the limit with
 * 413, but a Content-Type naming no media type (empty, `;;`, `json`) would be answered 415 by Fastify before any
 * parser runs, advising a media type that would be refused as well.
 */
export function dropContentTypeWhereNoBodyIsTaken(request: FastifyRequest): void {
  // Fastify answers a QUERY without Content-Type 400 before any handler (RFC 10008 section 2); on a path without
  // route, which reads its body as any other, that would come before its 401 or 404. Such a body is labelled with
  // a type no parser of its own takes, so it is read (and ignored) like any other body there.
  if (request.method === 'QUERY' && request.is404) {
    request.headers['content-type'] = 'application/octet-stream'
    return
  }
  if (
    request.headers['content-type'] !== undefined &&
    (request.is404 || (request.routeOptions.schema?.body === undefined && request.mediaType === undefined))
  )
    delete request.headers['content-type']
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  // Fastify parses text/plain bodies by default; the API takes JSON only, so anything else is a 415.
  app.removeContentTypeParser('text/plain')
  addJsonBodyParser(app, 'application/json')
  // Every other media type is refused (415) without reading the body, by an operation that takes one. An operation
  // that takes none refuses any body alike (400, refuse-body.ts), but an empty one (hasNoBody) is no body whatever
  // its label: Java's HttpURLConnection, for one, labels a bodiless POST application/x-www-form-urlencoded.
  app.addContentTypeParser('*', (request, payload, done) => {
    if (request.routeOptions.schema?.body !== undefined) return done(mediaTypeRefusal(request), undefined)
    if (hasNoBody(request)) return done(null, undefined)
    if (request.headers['content-length'] !== undefined) return done(null, UNREAD_BODY)
    // Chunks: empty when the last chunk comes first, as the JSON parser finds for a JSON label; otherwise refused
    // at its first byte, the rest unread.
    const answer = (body: typeof UNREAD_BODY | undefined) => {
      payload.off('data', onData).off('end', onEnd).off('error', onError)
      done(null, body)
    }
    const onData = (chunk: Buffer) => {
      if (chunk.length === 0) return
      payload.pause()
      answer(UNREAD_BODY)
    }
    const onEnd = () => answer(undefined)
    const onError = (error: Error) => {
      payload.off('data', onData).off('end', onEnd).off('error', onError)
      done(error, undefined)
    }
    payload.on('data', onData).on('end', onEnd).on('error', onError)
  })
}

/**
 * Reads bodies of a JSON media type as described above. application/json is read everywhere; a scope of routes
 * adds the other JSON types its operations take (application/merge-patch+json), so no other route accepts them.
 */
export function addJsonBodyParser(app: FastifyInstance, mediaType: string): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser(mediaType, { parseAs: 'buffer' }, (request, bytes, done) => {
    const body = bytes as Buffer
    // Some clients label every request JSON, bodiless DELETEs and actions included: for an operation that takes
    // no body, an empty one is simply no body, and any other is refused unread (refuse-body.ts).
    if (request.routeOptions.schema?.body === undefined) return done(null, body.length === 0 ? undefined : UNREAD_BODY)
    const refused = refusalOnHeaders(request, mediaType)
    if (refused !== undefined) return done(refused, undefined)
    const text = decodeUtf8(body)
    if (text === undefined) return done(notUtf8(body), undefined)
    parse(request, text, (error, value) => {
      if (error)
        return done(
          (error as { code?: string }).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? unreadableBody(text) : error,
          undefined,
        )
      const problem = findJsonProblem(text)
      if (problem !== undefined) return done(refusal(problem), undefined)
      done(null, value)
    })
  })
}
