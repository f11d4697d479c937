// What the per-address quota counts: the client's address, except that an IPv6 client counts by its /64 network.
// One host is normally given a whole /64 (SLAAC, a router's delegated prefix), so counting its 2^64 addresses
// one by one would let any IPv6 client escape the quota by changing its address on every request, and would
// push every other counter out of the in-memory store.
import ipaddr from 'ipaddr.js'

/**
 * The client's address, request.ip, which Fastify types as a string but gives as undefined when the client reset
 * the connection before the server read its address (a request sent with RST right behind it): then ''.
 */
export function requestAddress(request: Readonly<{ ip: string | undefined }>): string {
  return request.ip ?? ''
}

/** The rate-limit identity of a client address: an IPv4 address as it is (also when IPv4-mapped), an IPv6 /64. */
export function clientNetwork(address: string): string {
  // The common case, an IPv4 peer, costs one look for a colon.
  if (!address.includes(':') || !ipaddr.IPv6.isValid(address)) return address
  const parsed = ipaddr.IPv6.parse(address)
  // ::ffff:a.b.c.d in any spelling (ipaddr.js reads the older ::a.b.c.d so too): the IPv4 address it carries.
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString()
  // First 80 bits zero: loopback and the other special addresses of ::/80, each its own.
  if (parsed.parts.slice(0, 5).every((part) => part === 0)) return address
  return `${parsed.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`
}
