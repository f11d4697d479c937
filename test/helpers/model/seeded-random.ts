// The choices of a model-based run, drawn from one seed: the same seed makes the same sequence of requests, so a
// failure found once is found again. A small generator (mulberry32) is enough; nothing here needs more.

/** The seed of the model-based runs: PETSTORE_MODEL_SEED when set (a decimal integer), else a fixed one. */
export function modelSeed(): number {
  const given = process.env.PETSTORE_MODEL_SEED
  if (given === undefined || given === '') return 20261128
  if (!/^\d{1,9}$/.test(given)) throw new Error(`PETSTORE_MODEL_SEED must be a decimal integer, not ${given}`)
  return Number(given)
}

export interface Random {
  /** A number in [0, 1). */
  next(): number
  /** An integer in [0, below). */
  below(below: number): number
  pick<T>(items: readonly T[]): T
  chance(probability: number): boolean
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const below = (limit: number) => Math.floor(next() * limit)
  return {
    next,
    below,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('nothing to pick from')
      return items[below(items.length)] as T
    },
    chance: (probability) => next() < probability,
  }
}
