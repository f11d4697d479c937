// What the per-address quota counts: the client's address, except that an IPv6 client counts by its /64 network.
// One host is normally given a whole /64 (SLAAC, a router's delegated prefix), so counting its 2^64 addresses
// one by one would let any IPv6 client escape the quota by changing its address on every request, and would
// push every other counter out of the in-memory store.

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one this can read. */
function networkGroups(address: string): string[] | undefined {
  const text = address.split('%', 1)[0] ?? ''
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groupsOf = (half: string | undefined) =>
    half === undefined || half === ''
      ? []
      : half.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]))
  const head = groupsOf(halves[0])
  const tail = groupsOf(halves[1])
  const missing = 8 - head.length - tail.length
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined
  const groups = halves.length === 2 ? [...head, ...Array<string>(missing).fill('0'), ...tail] : head
  return groups.map((group) => Number.parseInt(group, 16).toString(16))
}

/** The rate-limit identity of a client address: an IPv4 address as it is (also when IPv4-mapped), an IPv6 /64. */
export function clientNetwork(address: string): string {
  if (!address.includes(':')) return address
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1] ?? address
  const groups = networkGroups(address)
  // First 80 bits zero: loopback, or an IPv4 address in another form (::a.b.c.d, ::ffff:hex): itself.
  if (groups === undefined || groups.slice(0, 5).every((group) => group === '0')) return address
  return `${groups.slice(0, 4).join(':')}::/64`
}
