// One delivery attempt on the wire: resolve the host, refuse it unless every address is public (the check is
// made at each attempt, so a name that resolves somewhere else tomorrow, DNS rebinding, is caught), and connect
// to exactly the addresses checked (the request's lookup returns them; Node never resolves the name again).
// Redirects are not followed: a 3xx is an answer like any other non-2xx. The status line decides the outcome
// (receiver-answer.ts reads what comes of the body for the log); the whole attempt, resolution included, has one
// time-out.
import { lookup as dnsLookup } from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction, type Socket } from 'node:net'
import type { AttemptOutcome } from '../../db/database.js'
import { classifyAddress, isLoopbackName, KIND_NAMES } from '../address-policy.js'
import { addressLiteral } from '../destination.js'
import { describeNetworkError } from './network-error.js'
import { logText, readAnswer, type ReceiverAnswer } from './receiver-answer.js'

const USER_AGENT = 'Petstore-Webhooks/1'

export interface ResolvedAddress {
  address: string
  family: number
}

/** The outside world as deliveries see it. Tests replace it (a resolver stub; a connection to a loopback listener). */
export interface WebhookNetwork {
  /** Every address a host name resolves to. */
  resolve(hostname: string): Promise<ResolvedAddress[]>
  /** Opens the TCP connection of a plain-HTTP request to the URL's host and port; net.connect when absent. */
  connect?: (target: { host: string; port: number }) => Socket
}

export const systemNetwork: WebhookNetwork = {
  resolve: (hostname) => dnsLookup(hostname, { all: true, verbatim: true }),
}

export interface OutboundRequest {
  url: string
  headers: Record<string, string>
  body: string
  /** Aborted when the attempt must be given up (shutdown): the post then rejects with AttemptAbandoned. */
  signal: AbortSignal
}

export interface OutboundResult {
  outcome: Extract<
    AttemptOutcome,
    'succeeded' | 'unexpected_status' | 'timed_out' | 'network_error' | 'destination_refused'
  >
  responseStatus: number | null
  error: string | null
  /** The start of the response body as text, or null when there was none. */
  responseBody: string | null
}

/**
 * The attempt was given up before it ended (shutdown): it has no outcome. `sent`: the whole request had been
 * handed to the connection, so the receiver may have it; before that it cannot (the body is framed by its length).
 */
export class AttemptAbandoned extends Error {
  readonly sent: boolean

  constructor(sent = false) {
    super(sent ? 'the attempt was given up after its request was sent' : 'the attempt was given up')
    this.sent = sent
  }
}
class DestinationRefused extends Error {}
class TimedOut extends Error {}

export interface OutboundSettings {
  network: WebhookNetwork
  allowPrivateNetworks: boolean
  timeoutMs: number
  /** Connections at most, in all and to one host alike (endpoints on one host share them); idle ones per host. */
  sockets: number
  idleSocketsPerHost: number
}

export interface Outbound {
  post(request: OutboundRequest): Promise<OutboundResult>
  /** Closes idle kept-alive connections. */
  close(): void
}

/** A lookup that answers with the addresses already checked, whatever it is asked. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const [first] = addresses
    if (options.all)
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      )
    else if (first) callback(null, first.address, first.family)
  }
}

export function createOutbound(settings: OutboundSettings): Outbound {
  const agentOptions = {
    keepAlive: true,
    maxSockets: settings.sockets,
    maxTotalSockets: settings.sockets,
    maxFreeSockets: settings.idleSocketsPerHost,
    scheduling: 'lifo' as const,
  }
  const httpAgent = new http.Agent(agentOptions)
  const httpsAgent = new https.Agent(agentOptions)
  const { connect } = settings.network
  const createConnection =
    connect &&
    ((options: http.ClientRequestArgs) => connect({ host: String(options.host), port: Number(options.port) }))
  // The Agent's own hook for opening connections (not in @types/node).
  if (createConnection) Object.assign(httpAgent, { createConnection })

  async function checkedAddresses(target: URL): Promise<ResolvedAddress[]> {
    const literal = addressLiteral(target)
    if (!settings.allowPrivateNetworks && literal === undefined && isLoopbackName(target.hostname)) {
      throw new DestinationRefused(
        `${target.hostname} is ${KIND_NAMES.loopback}; webhooks are delivered only to public addresses`,
      )
    }
    const addresses =
      literal === undefined
        ? await settings.network.resolve(target.hostname)
        : [{ address: literal, family: isIP(literal) }]
    if (addresses.length === 0) throw new Error(`${target.hostname} has no address`)
    if (settings.allowPrivateNetworks) return addresses
    for (const { address } of addresses) {
      const kind = classifyAddress(address)
      const named = literal === undefined ? `${target.hostname} resolves to ${address},` : `${target.hostname} is`
      if (kind !== 'public')
        throw new DestinationRefused(`${named} ${KIND_NAMES[kind]}; webhooks are delivered only to public addresses`)
    }
    return addresses
  }

  function send(
    target: URL,
    addresses: readonly ResolvedAddress[],
    request: OutboundRequest,
    signal: AbortSignal,
    progress: { sent: boolean },
    fresh = false,
  ): Promise<ReceiverAnswer> {
    const secure = target.protocol === 'https:'
    return new Promise((resolve, reject) => {
      let answered = false
      const outgoing = (secure ? https : http).request(
        {
          protocol: target.protocol,
          hostname: addressLiteral(target) ?? target.hostname,
          port: target.port || (secure ? 443 : 80),
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            'content-length': String(Buffer.byteLength(request.body)),
            ...request.headers,
          },
          agent: fresh ? false : secure ? httpsAgent : httpAgent,
          ...(fresh && createConnection && !secure ? { createConnection } : {}),
          lookup: pinnedLookup(addresses),
          signal,
        },
        (response) => {
          answered = true
          void readAnswer(response).then(resolve)
        },
      )
      outgoing.on('error', (error) => {
        // The status line is in: the attempt has its outcome, whatever becomes of the body (the deadline that
        // aborts the request while the body is read only ends the reading).
        if (answered) return
        // A kept-alive connection the receiver closed just as it was reused: the request never reached it, so
        // it is sent once more on a new connection (Node's documented remedy).
        if (outgoing.reusedSocket && !fresh && (error as { code?: string }).code === 'ECONNRESET' && !signal.aborted) {
          progress.sent = false
          send(target, addresses, request, signal, progress, true).then(resolve, reject)
        } else reject(error)
      })
      outgoing.on('finish', () => (progress.sent = true))
      outgoing.end(request.body)
    })
  }

  return {
    async post(request) {
      const deadline = new AbortController()
      const timer = setTimeout(
        () => deadline.abort(new TimedOut(`no answer within ${settings.timeoutMs} ms`)),
        settings.timeoutMs,
      )
      const abandon = () => deadline.abort(new AttemptAbandoned())
      const progress = { sent: false }
      request.signal.addEventListener('abort', abandon)
      if (request.signal.aborted) abandon()
      try {
        const target = new URL(request.url)
        // Resolution cannot be cancelled; the attempt stops waiting for it at the deadline all the same.
        const aborted = new Promise<never>((_resolve, reject) =>
          deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason as Error)),
        )
        aborted.catch(() => {})
        const addresses = await Promise.race([checkedAddresses(target), aborted])
        const response = await send(target, addresses, request, deadline.signal, progress)
        const responseBody = response.body.length > 0 ? logText(response.body) : null
        if (response.status >= 200 && response.status <= 299)
          return { outcome: 'succeeded', responseStatus: response.status, error: null, responseBody }
        const redirect = response.status >= 300 && response.status <= 399 ? ' (a redirect, which is not followed)' : ''
        return {
          outcome: 'unexpected_status',
          responseStatus: response.status,
          error: `the receiver answered ${response.status}${redirect}; only 2xx is success`,
          responseBody,
        }
      } catch (error) {
        const reason: unknown = deadline.signal.aborted ? deadline.signal.reason : error
        if (reason instanceof AttemptAbandoned) throw new AttemptAbandoned(progress.sent)
        if (reason instanceof TimedOut)
          return { outcome: 'timed_out', responseStatus: null, error: reason.message, responseBody: null }
        if (reason instanceof DestinationRefused)
          return { outcome: 'destination_refused', responseStatus: null, error: reason.message, responseBody: null }
        return {
          outcome: 'network_error',
          responseStatus: null,
          error: describeNetworkError(reason),
          responseBody: null,
        }
      } finally {
        clearTimeout(timer)
        request.signal.removeEventListener('abort', abandon)
      }
    },
    close() {
      httpAgent.destroy()
      httpsAgent.destroy()
    },
  }
}
