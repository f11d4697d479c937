// Kinds that hold a list: the proxies trusted to name the client, the delays between webhook retries.
import { BlockList, isIP } from 'node:net'
import { ConfigError } from './config-error.js'
import type { Kind } from './kinds.js'

/** Which peers may tell the client's address in X-Forwarded-For: none, the nearest N hops, or these addresses. */
export type TrustProxy = false | number | string[]

// proxy-addr's names for the usual private ranges (127.0.0.0/8 and ::1; 169.254.0.0/16 and fe80::/10;
// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 and fc00::/7).
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal']

// The widest range a proxy is trusted in: 10.0.0.0/8 and fc00::/7 are the widest private ones. A wider range is
// most of the internet: its clients could name any address they like (0.0.0.0/1 and 128.0.0.0/1 together are
// every peer, which is not offered; see below).
const WIDEST_PREFIX = { 4: 8, 6: 7 } as const
// IPv6 addresses whose first 80 bits are zero hold IPv4 addresses (::ffff:a.b.c.d, and ::a.b.c.d, which the proxy
// check reads as the same), in any spelling: a range there counts from bit 96, so it needs at least 96 + 8 bits.
const IPV4_IN_IPV6 = new BlockList()
IPV4_IN_IPV6.addSubnet('::', 80, 'ipv6')
const WIDEST_IPV4_IN_IPV6_PREFIX = 96 + WIDEST_PREFIX[4]

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return false
  if (family === 4) return Number(prefix) >= WIDEST_PREFIX[4]
  if (IPV4_IN_IPV6.check(address, 'ipv6')) return Number(prefix) >= WIDEST_IPV4_IN_IPV6_PREFIX
  return Number(prefix) >= WIDEST_PREFIX[6]
}

const PROXIES =
  'false, a hop count from 1 to 9, or comma-separated proxy addresses and CIDR ranges no wider than /8 (IPv6: /7) ' +
  '(e.g. 127.0.0.1,10.0.0.0/8; loopback, linklocal and uniquelocal name the private ranges)'

// Trusting every peer (Fastify's `true`) is not offered: any client could then name its own address and
// escape the per-address rate limit.
export const trustProxy: Kind<TrustProxy> = {
  accepts: PROXIES,
  defaultText: 'false',
  unset: () => false,
  parse(value, name) {
    if (value === 'false') return false
    if (/^[1-9]$/.test(value)) return Number(value)
    const entries = value.split(',').map((entry) => entry.trim())
    if (!entries.every(isProxyAddress)) throw new ConfigError(name, PROXIES, value)
    return entries
  },
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const MAX_RETRY_DELAY_MS = 7 * 86_400_000
const MAX_RETRIES = 20
const DELAYS =
  `none, or 1 to ${MAX_RETRIES} comma-separated delays from 1ms to 7d, ` +
  'each a whole number with a unit ms, s, m, h or d (e.g. 1s,2s,5s)'
// About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: a receiver that is down for most of a day still gets the event.
const DEFAULT_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]

/** The delays before each retry of a failed delivery, in milliseconds. */
export const retrySchedule: Kind<readonly number[]> = {
  accepts: DELAYS,
  defaultText: '5s,5m,30m,2h,5h,10h,10h, each ±20 %',
  unset: () => DEFAULT_SCHEDULE_MS,
  parse(value, name) {
    if (value === 'none') return []
    const delays = value.split(',').map((entry) => {
      const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(entry.trim())
      return match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? NaN) : NaN
    })
    if (delays.length > MAX_RETRIES || !delays.every((delay) => delay >= 1 && delay <= MAX_RETRY_DELAY_MS)) {
      throw new ConfigError(name, DELAYS, value)
    }
    return delays
  },
}
