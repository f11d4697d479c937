// The charset a Content-Type declares. JSON is UTF-8 (RFC 8259 section 8.1) and the body is decoded as UTF-8 only,
// so a body declared in another charset would be misread (latin1 `é` is one byte, not valid UTF-8, or worse,
// valid UTF-8 meaning something else): the client is told so (415) rather than guessed at. Also which media
// types a route's body may have.
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors/errors.js'
import { MESSAGES } from '../errors/error-messages.js'

const TOKEN = "[\\w!#$%&'*+.^`|~-]+"
// RFC 9110 section 5.6.6: `;` OWS parameter-name "=" ( token / quoted-string ), as Fastify reads the header too.
const PARAMETER = new RegExp(`(?:^|;)[\\t ]*(${TOKEN})=("(?:[^"\\\\]|\\\\.)*"|${TOKEN})`, 'g')
const QUOTED_PAIR = /\\(.)/g
/** A charset parameter left once every well-formed parameter is taken out: an empty or unclosed value. */
const MALFORMED_CHARSET = /(?:^|;)[\t ]*charset[\t ]*=([^;]*)/i

/**
 * The first charset parameter of a Content-Type value that is not `utf-8` (any case, quoted or not), or one that is
 * malformed, if any.
 */
export function unsupportedCharset(contentType: string | undefined): string | undefined {
  // Nearly every request: `application/json`, without parameters.
  if (contentType === undefined) return undefined
  const parameters = contentType.indexOf(';')
  if (parameters === -1) return undefined
  for (const [, name = '', raw = ''] of contentType.slice(parameters).matchAll(PARAMETER)) {
    if (name.toLowerCase() !== 'charset') continue
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(QUOTED_PAIR, '$1') : raw
    if (value.toLowerCase() !== 'utf-8') return value
  }
  // `charset="utf-8` (never closed) or `charset=` declares no charset this service can read as UTF-8 either.
  return MALFORMED_CHARSET.exec(contentType.slice(parameters).replace(PARAMETER, ''))?.[1]
}

const QUOTED_STRING = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"'
/**
 * RFC 9110 section 8.3.1: type "/" subtype *( OWS ";" OWS [ parameter ] ); one media type, nothing after it. The
 * white space after a `;` is matched together with the parameter it precedes, or at the very end: matched on its
 * own, as the grammar reads, the spaces between two empty parameters (`; ;`) could go to either `;`, and a value
 * that fails at its end would be retried in every split, 2^n of them, a 90-byte header holding the process for
 * minutes.
 */
const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(?:[\\t ]*;(?:[\\t ]*${TOKEN}=(?:${TOKEN}|${QUOTED_STRING}))?)*[\\t ]*$`,
)

/**
 * Whether a Content-Type value is one well-formed media type. Fastify reads the type and the parameters it
 * recognises and ignores the rest, so `application/json;charset=utf-8, text/plain` (a list) or
 * `application/json;charset=utf-8 text/plain` would be read as JSON: the label says something else, so it is
 * refused rather than guessed at.
 */
export function isOneMediaType(contentType: string): boolean {
  return MEDIA_TYPE.test(contentType)
}

/** RFC 7396's media type, which every operation that takes a JSON Merge Patch accepts besides application/json. */
export const MERGE_PATCH = 'application/merge-patch+json'

/** The media types a PATCH operation (updatePet, updateWebhook) takes: its `consumes`, and its Accept-Patch. */
export const PATCH_MEDIA_TYPES: string[] = [MERGE_PATCH, 'application/json']

/**
 * Accept-Patch (RFC 5789 section 3.1): the patch formats a resource takes, sent where a client may look for them,
 * in the answer to OPTIONS and in the 415 of a PATCH with another format (section 2.2).
 */
export const ACCEPT_PATCH = PATCH_MEDIA_TYPES.join(', ')

/** The media types the route's body may have: its schema's `consumes` (which also documents them), or JSON. */
export function acceptedMediaTypes(request: FastifyRequest): string[] {
  const consumes = (request.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes
  return consumes && consumes.length > 0 ? consumes : ['application/json']
}

/**
 * The 415 for a body of a media type the operation does not take. A PATCH's also says, in Accept-Patch, which
 * patch formats it takes (RFC 5789 section 2.2), as the message does in words.
 */
export function mediaTypeRefusal(request: FastifyRequest): ApiError {
  const accepted = acceptedMediaTypes(request)
  return new ApiError(
    'unsupported_media_type',
    MESSAGES.mediaTypeRequired(accepted),
    request.method === 'PATCH' ? { headers: { 'accept-patch': accepted.join(', ') } } : {},
  )
}
