// What a log line may say about a request's URL. Clients put keys where they should not (`?access_token=…`,
// a key pasted into the path), and logs are read by more people, kept longer and copied further than the
// key store: every log line that carries a URL or quotes part of one goes through here.
import type { FastifyRequest } from 'fastify'
import { requestAddress } from '../auth/client-network.js'

export const REDACTED = '[redacted]'

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')

/**
 * A regular expression source for `text` with each character as it is or percent-encoded, once or more: a URL may
 * encode any character, and the log quotes URLs as sent (`%70` is `p`; `%2570` decodes to `%70`, then to `p`).
 * Compiled case-insensitive, it takes hex digits in either case.
 */
export function anyEncodingOf(text: string): string {
  const character = (char: string) => {
    const encoded = [...Buffer.from(char)].map((byte) => `%(?:25)*${byte.toString(16).padStart(2, '0')}`).join('')
    return `(?:${escapeRegExp(char)}|${encoded})`
  }
  return [...text].map(character).join('')
}

// The service's own keys, wherever they appear, their prefix in any encoding (`%70st_…` is the key `pst_…`). The
// tail takes every character a key (base64url) or its percent-encoding can hold.
const SERVICE_KEY_PREFIX = anyEncodingOf('pst_')
const SERVICE_KEY = new RegExp(`${SERVICE_KEY_PREFIX}[\\w%-]*`, 'gi')
const HOLDS_SERVICE_KEY = new RegExp(SERVICE_KEY_PREFIX, 'i')

// Query parameter names that usually carry a secret, matched within the name once lower-cased and stripped of
// separators: access_token, id_token, api_key, apiKey, X-Api-Key, client_secret, password, passwd, pwd, auth,
// authorization, signature, X-Amz-Signature, sig, session, credentials, jwt, an OAuth code…
const CREDENTIAL_NAME = /auth|code|credential|jwt|key|pass|pwd|secret|session|sig|token/

/** True when `text` holds what starts the service's own keys (`pst_`, any of its characters perhaps encoded). */
export function holdsServiceKey(text: string): boolean {
  return HOLDS_SERVICE_KEY.test(text)
}

/** Text with every service key in it replaced. */
export function redactKeys(text: string): string {
  return text.replace(SERVICE_KEY, REDACTED)
}

function looksLikeCredential(rawName: string): boolean {
  let name = rawName.replaceAll('+', ' ')
  try {
    name = decodeURIComponent(name)
  } catch {
    // Not valid percent-encoding: judged as written.
  }
  return CREDENTIAL_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''))
}

// The user information of an absolute-form target (`GET http://user:password@host/…`): a password, whatever the
// service makes of the request.
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i

/**
 * A request target as it may be logged: the user information of an absolute-form target, credential-like query
 * values and service keys anywhere replaced.
 */
export function redactUrl(target: string): string {
  const url = target.replace(USER_INFO, `$1${REDACTED}@`)
  const queryStart = url.indexOf('?')
  if (queryStart === -1) return redactKeys(url)
  const query = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      return equals !== -1 && looksLikeCredential(pair.slice(0, equals))
        ? `${pair.slice(0, equals + 1)}${REDACTED}`
        : pair
    })
  return redactKeys(`${url.slice(0, queryStart + 1)}${query.join('&')}`)
}

/**
 * The client's address as it may be logged: behind a trusted proxy it is the text of X-Forwarded-For, which the
 * proxy may have passed on as a client wrote it, so a key of the service there is replaced.
 */
export function loggedAddress(request: FastifyRequest): string {
  return redactKeys(requestAddress(request))
}

/** Fastify's `req` log serializer with the URL redacted (Fastify's own writes request.url as it came). */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    // The Host header is the client's to write, as the URL is: a key pasted there is redacted the same way.
    host: redactKeys(request.host),
    remoteAddress: loggedAddress(request),
    remotePort: request.socket?.remotePort,
  }
}
