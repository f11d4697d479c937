// Which addresses a webhook may be delivered to. A key holder chooses the URL, so without this the service would
// POST wherever it is told: to itself, to a database next to it, to the cloud's metadata service (169.254.169.254,
// which hands out credentials). Only public unicast addresses are allowed; everything below is refused, IPv6
// forms that carry an IPv4 address (mapped, translated, NAT64's well-known prefix, 6to4) by the IPv4 address they
// carry. The local-use NAT64 prefix (64:ff9b:1::/48) is refused outright: where its operator puts the IPv4 address
// inside it is a local choice, so what it reaches cannot be told from the address.
import { isIP } from 'node:net'

export type AddressKind =
  'public' | 'unspecified' | 'loopback' | 'private' | 'shared' | 'link-local' | 'multicast' | 'reserved'

/** How each refused kind is named in messages and the delivery log. */
export const KIND_NAMES: Record<Exclude<AddressKind, 'public'>, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private network address',
  shared: 'a shared (carrier-grade NAT) address',
  'link-local': 'a link-local address (where cloud metadata services answer)',
  multicast: 'a multicast address',
  reserved: 'a reserved or documentation address',
}

type Range = readonly [prefix: bigint, length: number, kind: Exclude<AddressKind, 'public'>]

const IPV4_RANGES: readonly [string, number, Exclude<AddressKind, 'public'>][] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network"
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['192.88.99.0', 24, 'reserved'], // 6to4 relays (deprecated)
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // future use, and the broadcast address
]

const IPV6_RANGES: readonly [string, number, Exclude<AddressKind, 'public'>][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48, 'private'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard
  ['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo included
  ['2001:db8::', 32, 'reserved'], // documentation
  ['3fff::', 20, 'reserved'], // documentation (RFC 9637)
  ['5f00::', 16, 'reserved'], // segment routing identifiers (RFC 9602), not hosts
  ['fc00::', 7, 'private'], // unique local
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // site-local (deprecated)
  ['ff00::', 8, 'multicast'],
]

function ipv4Number(address: string): bigint {
  return address.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n)
}

/** The 128-bit value of an IPv6 address (`::` shortening, a trailing dotted IPv4 part and a zone allowed). */
function ipv6Number(address: string): bigint {
  let text = address.replace(/%.*$/, '')
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1]
  if (dotted !== undefined) {
    const value = ipv4Number(dotted)
    text = `${text.slice(0, -dotted.length)}${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n)
}

const toRanges = (ranges: typeof IPV4_RANGES, bits: number, parse: (address: string) => bigint): Range[] =>
  ranges.map(([address, length, kind]) => [parse(address) >> BigInt(bits - length), length, kind] as const)

const V4 = toRanges(IPV4_RANGES, 32, ipv4Number)
const V6 = toRanges(IPV6_RANGES, 128, ipv6Number)

/** The most specific range that holds the value (ranges nest: ::1 inside ::/96). */
function kindIn(ranges: readonly Range[], value: bigint, bits: number): AddressKind {
  let found: Range | undefined
  for (const range of ranges) {
    const [prefix, length] = range
    if (value >> BigInt(bits - length) === prefix && (!found || length > found[1])) found = range
  }
  return found?.[2] ?? 'public'
}

/**
 * The IPv4 address an IPv6 address stands for: IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96,
 * RFC 2765), NAT64's well-known prefix (64:ff9b::/96, RFC 6052), 6to4 (2002::/16).
 */
function embeddedIpv4(value: bigint): bigint | undefined {
  if (value >> 32n === 0xffffn || value >> 32n === 0xffff0000n) return value & 0xffffffffn
  if (value >> 32n === 0x64ff9b0000000000000000n) return value & 0xffffffffn
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffffffffn
  return undefined
}

/** What kind of address `address` (an IPv4 or IPv6 literal) is; throws for anything else. */
export function classifyAddress(address: string): AddressKind {
  const family = isIP(address.replace(/%.*$/, ''))
  if (family === 4) return kindIn(V4, ipv4Number(address), 32)
  if (family !== 6) throw new Error(`${JSON.stringify(address)} is not an IP address`)
  const value = ipv6Number(address)
  const embedded = embeddedIpv4(value)
  return embedded === undefined ? kindIn(V6, value, 128) : kindIn(V4, embedded, 32)
}

/** Names that always mean this machine (RFC 6761), refused without asking a resolver. */
export function isLoopbackName(hostname: string): boolean {
  // Every trailing dot: a resolver may read `localhost..` as `localhost` too.
  const name = hostname.toLowerCase().replace(/\.+$/, '')
  return name === 'localhost' || name.endsWith('.localhost')
}
