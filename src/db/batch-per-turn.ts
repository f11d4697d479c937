/**
 * Loads by key, all the keys asked for during one event-loop turn in one call of `loadMany`, made in the
 * check phase (after every request received in the turn has asked). For reads over the network (PostgreSQL):
 * twenty gets by id become one query of twenty ids, one round trip instead of twenty, which on a loaded
 * machine costs a fifth of the CPU on both sides. A key asked for twice in a turn is loaded once.
 *
 * The load starts after its callers asked, so it sees every commit acknowledged before they did.
 */
export function batchPerTurn<Key, Value>(
  loadMany: (keys: Key[]) => Promise<Map<Key, Value>>,
): (key: Key) => Promise<Value | undefined> {
  let next: { keys: Set<Key>; loaded: Promise<Map<Key, Value>> } | undefined
  return async (key) => {
    if (!next) {
      const keys = new Set<Key>()
      const loaded = new Promise<Map<Key, Value>>((resolve, reject) => {
        setImmediate(() => {
          // Cleared first: a key asked for after this point waits for a load of its own.
          next = undefined
          loadMany([...keys]).then(resolve, reject)
        })
      })
      next = { keys, loaded }
    }
    next.keys.add(key)
    return (await next.loaded).get(key)
  }
}
