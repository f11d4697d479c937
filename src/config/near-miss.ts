// A misspelt variable is silently ignored, and the service then runs on a default (a typo in DATABSE_URL
// means a fresh SQLite file instead of PostgreSQL). Names close to one we read are therefore reported.

/** Edit distance with adjacent transpositions counted as one edit (PROT → PORT is one slip of the fingers). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[]
    const above = rows[i - 1] as number[]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1)
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number
}

/**
 * Short names allow one edit, longer ones two: with two, HOME would pass for HOST and PGPORT for PORT on
 * every machine. Case is ignored (database_url is a near miss too).
 */
function isNearMiss(candidate: string, known: string): boolean {
  const a = candidate.toUpperCase()
  if (a === known) return candidate !== known
  if (a === `${known}S` || `${a}S` === known) return true
  if (Math.abs(a.length - known.length) > 2) return false
  return editDistance(a, known) <= (known.length <= 6 ? 1 : 2)
}

export interface NearMiss {
  /** The variable that is set but not read. */
  name: string
  /** The variable it probably meant. */
  meant: string
}

/** Every set name that is not one we read but is close to one; the closest known name for each. */
export function findNearMisses(setNames: Iterable<string>, knownNames: readonly string[]): NearMiss[] {
  const known = new Set(knownNames)
  const misses: NearMiss[] = []
  for (const name of setNames) {
    if (known.has(name)) continue
    const matches = knownNames.filter((candidate) => isNearMiss(name, candidate))
    matches.sort((x, y) => editDistance(name.toUpperCase(), x) - editDistance(name.toUpperCase(), y))
    if (matches[0]) misses.push({ name, meant: matches[0] })
  }
  return misses.sort((x, y) => (x.name < y.name ? -1 : 1))
}
