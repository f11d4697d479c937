// A webhook URL, as registered: an http(s) URL without credentials or fragment, and, while private networks are
// refused, not naming a refused address outright. Host names are not resolved here: what a name resolves to can
// change at any time, so it is checked (and pinned) at each delivery attempt instead (outbound-http.ts).
import { isIP } from 'node:net'
import { InvalidInput } from '../domain/errors.js'
import { classifyAddress, isLoopbackName, KIND_NAMES } from './address-policy.js'

export const MAX_URL_LENGTH = 2048

const refuse = (problem: string, message: string) =>
  new InvalidInput('url', problem, `Invalid request: url ${message}.`)

/** The host of a URL as an address literal (brackets of IPv6 removed), or undefined for a name. */
export function addressLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return isIP(host) === 0 ? undefined : host
}

/**
 * The URL as it will be stored and called (normalised by the WHATWG parser, which also reads `http://2130706433/`
 * as `http://127.0.0.1/`), or an InvalidInput saying what is wrong with it.
 */
export function checkDestination(text: string, allowPrivateNetworks: boolean): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw refuse('is not a URL', 'is not an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw refuse('must be http or https', `must use http or https, not ${url.protocol.slice(0, -1)}`)
  // The WHATWG parser drops spaces and control characters around a URL and tabs and newlines inside it, and reads
  // `http:host`, `http:\\host`, `https:///host` or a backslash anywhere as the URL written with slashes: such a text
  // is refused, not stored as a URL other than the one sent.
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f]/.test(text))
    throw refuse(
      'must not contain spaces or control characters',
      'must not contain spaces or control characters (percent-encode them)',
    )
  if (!/^https?:\/\/[^/]/i.test(text))
    throw refuse('must start with http:// or https://', 'must start with http:// or https:// and a host')
  if (text.includes('\\')) throw refuse('must not contain a backslash', 'must not contain a backslash (\\)')
  // Credentials in the URL would be sent to the receiver and shown to every holder of webhooks:manage. An empty
  // user name (`http://@host/`, `http://:@host/`) is dropped by the parser: refused too, like any repair.
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/?#]*@/i.test(text))
    throw refuse('must not contain credentials', 'must not contain a user name or password')
  // An empty fragment (`…/hook#`) reads as hash '' but stays in the URL: only href shows it.
  if (url.hash !== '' || url.href.includes('#'))
    throw refuse('must not have a fragment', 'must not have a fragment (#…), which is never sent')
  // Port 0 names no service: nothing can ever be delivered there.
  if (url.port === '0') throw refuse('must not use port 0', 'must not use port 0, where no service can listen')
  if (url.href.length > MAX_URL_LENGTH)
    throw refuse(
      `must be at most ${MAX_URL_LENGTH} characters`,
      `must be at most ${MAX_URL_LENGTH} characters once normalised`,
    )
  if (!allowPrivateNetworks) {
    const literal = addressLiteral(url)
    const kind =
      literal === undefined ? (isLoopbackName(url.hostname) ? 'loopback' : 'public') : classifyAddress(literal)
    if (kind !== 'public') {
      throw refuse(
        `is ${KIND_NAMES[kind]}`,
        // The operator's switch is named so that someone trying a local receiver finds it without the docs.
        `points at ${url.hostname}, ${KIND_NAMES[kind]}; webhooks are delivered only to public addresses ` +
          'unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (for a receiver on a local network)',
      )
    }
  }
  return url.href
}
