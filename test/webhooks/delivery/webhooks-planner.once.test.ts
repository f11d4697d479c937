// The deliverer's planner on its own (no timers, no database): which held deliveries start, in what turn, and
// which endpoints a claim may take more of, as endpoints answer or time out.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CLAIM_AHEAD, DeliveryPlanner, type PlannedDelivery } from '../../../src/webhooks/delivery/delivery-planner.js'

const NOW = 1_000_000
const SETTINGS = {
  concurrency: 64,
  concurrencyPerEndpoint: 8,
  attemptTimeoutMs: 10_000,
  leaseMs: 60_000,
  busyIntervalMs: 50,
}

let nextId = 1
function held(endpointId: number, count: number, leaseEndsAt = NOW + SETTINGS.leaseMs): PlannedDelivery[] {
  return Array.from({ length: count }, () => ({ id: nextId++, endpointId, leaseEndsAt }))
}

function planner(settings: Partial<typeof SETTINGS> = {}) {
  return new DeliveryPlanner<PlannedDelivery>({ ...SETTINGS, ...settings })
}

/** Started deliveries per endpoint. */
function perEndpoint(started: readonly PlannedDelivery[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const { endpointId } of started) counts[endpointId] = (counts[endpointId] ?? 0) + 1
  return counts
}

describe('the delivery planner', () => {
  it('gives one endpoint alone its places, no more', () => {
    const plan = planner()
    for (const delivery of held(1, 20)) plan.hold(delivery)
    const { start, giveBack, nextAt } = plan.plan(NOW, false)
    assert.deepEqual(perEndpoint(start), { 1: 8 })
    assert.deepEqual([giveBack, nextAt], [[], undefined])
    assert.deepEqual(plan.plan(NOW, false).start, [])
  })

  it('shares the places among the endpoints with work, taking turns', () => {
    const plan = planner({ concurrency: 10 })
    for (const endpointId of [1, 2, 3, 4]) {
      plan.health.record(endpointId, true, NOW)
      for (const delivery of held(endpointId, 8)) plan.hold(delivery)
    }
    // 10 places, 4 endpoints: two places each (the share), the turns going round.
    const { start } = plan.plan(NOW, false)
    assert.deepEqual(perEndpoint(start), { 1: 2, 2: 2, 3: 2, 4: 2 })
    assert.deepEqual(
      start.slice(0, 4).map((delivery) => delivery.endpointId),
      [1, 2, 3, 4],
    )
  })

  it('beside twenty hanging endpoints, a healthy one keeps its share; the hanging ones go down to one place', () => {
    const plan = planner()
    const hanging = Array.from({ length: 20 }, (_, index) => 100 + index)
    for (const endpointId of hanging) for (const delivery of held(endpointId, 8)) plan.hold(delivery)
    // A first attempt each (20), then, for endpoints not known to answer, half the places at most (32).
    const first = plan.plan(NOW, false)
    assert.equal(first.start.length, 52)
    // The healthy endpoint (it answered before) finds its share of places at once: 64 among 21 endpoints.
    plan.health.record(1, true, NOW)
    for (const delivery of held(1, 8)) plan.hold(delivery)
    assert.deepEqual(perEndpoint(plan.plan(NOW, false).start), { 1: 3 })
    // The hanging attempts time out (three each for the first twelve, two for the others): each time-out
    // halves the endpoint's places.
    for (const delivery of first.start) plan.ended(delivery, false, NOW + 10_000)
    const places = (id: number) => (id < 112 ? 1 : 2)
    for (const endpointId of hanging) assert.equal(plan.health.places(endpointId), places(endpointId))
    // Each starts as many attempts as it has places; what it held beyond them goes back, for anyone to take.
    const again = plan.plan(NOW + 10_000, false)
    assert.deepEqual(perEndpoint(again.start), Object.fromEntries(hanging.map((id) => [id, places(id)])))
    assert.equal(again.giveBack.length, 20 * 4)
    for (const endpointId of hanging) assert.equal(plan.held(endpointId), places(endpointId))
  })

  it('keeps half the places for endpoints that answer, however many hang', () => {
    const plan = planner()
    const hanging = Array.from({ length: 100 }, (_, index) => 100 + index)
    for (const endpointId of hanging) {
      plan.health.record(endpointId, false, NOW)
      for (const delivery of held(endpointId, 8)) plan.hold(delivery)
    }
    assert.equal(plan.plan(NOW, false).start.length, 32)
    plan.health.record(1, true, NOW)
    for (const delivery of held(1, 8)) plan.hold(delivery)
    assert.deepEqual(perEndpoint(plan.plan(NOW, false).start), { 1: 1 })
  })

  it('halves the places of an endpoint at each time-out, down to one, until it answers; says so', () => {
    const plan = planner()
    // A second apart: the throttling dates from the first time-out of the run, not from the latest.
    for (const [index, expected] of [4, 2, 1, 1].entries()) {
      plan.health.record(100, false, NOW + index * 1000)
      assert.equal(plan.health.places(100), expected)
    }
    assert.deepEqual(plan.health.throttled(), [
      { endpointId: 100, places: 1, reason: 'timed_out', timeouts: 4, since: NOW },
    ])
    // A throttled endpoint is claimed for its places only, not a few attempts' worth ahead.
    assert.equal(plan.allowance(100), 1)
    assert.equal(plan.allowance(101), 8 * CLAIM_AHEAD)
    assert.equal(plan.notFree().get(100), 8 * CLAIM_AHEAD - 1)
    assert.ok(plan.fullEndpoints().every((id) => id !== 101))
    plan.health.record(100, true, NOW)
    assert.equal(plan.health.places(100), 8)
    assert.deepEqual(plan.health.throttled(), [])
  })

  it('forgets the endpoints that no longer exist: their throttling, and whether they answered', () => {
    const plan = planner()
    plan.health.record(100, false, NOW)
    plan.health.record(101, false, NOW)
    plan.health.record(102, true, NOW)
    plan.health.forgetAllBut(new Set([101]))
    assert.deepEqual(plan.health.throttled(), [
      { endpointId: 101, places: 4, reason: 'timed_out', timeouts: 1, since: NOW },
    ])
    assert.deepEqual(
      [100, 101, 102].map((id) => [plan.health.heard(id), plan.health.answers(id), plan.health.places(id)]),
      [
        [false, false, 8],
        [true, false, 4],
        [false, false, 8],
      ],
    )
    assert.deepEqual([...plan.notFree().keys()], [101])
    plan.health.forgetAllBut(new Set())
    assert.equal(plan.health.remembersAny, false)
  })

  it('gives back what it holds too late to attempt within the lease', () => {
    const plan = planner()
    const [late, fresh] = [...held(1, 1, NOW + 11_000), ...held(1, 1)]
    assert.ok(late && fresh)
    plan.hold(late)
    plan.hold(fresh)
    const { start, giveBack } = plan.plan(NOW, false)
    assert.deepEqual([start, giveBack], [[fresh], [late]])
    assert.equal(plan.heldTotal, 1)
  })

  it('while the API is busy, starts one attempt per busy interval, the endpoints taking turns', () => {
    const plan = planner()
    for (const endpointId of [1, 2]) for (const delivery of held(endpointId, 3)) plan.hold(delivery)
    const first = plan.plan(NOW, true)
    assert.deepEqual([perEndpoint(first.start), first.nextAt], [{ 1: 1 }, NOW + 50])
    assert.deepEqual(plan.plan(NOW + 10, true), { start: [], giveBack: [], nextAt: NOW + 50 })
    const second = plan.plan(NOW + 50, true)
    assert.deepEqual([perEndpoint(second.start), second.nextAt], [{ 2: 1 }, NOW + 100])
    // One place per endpoint while busy: endpoint 1 still has its attempt running.
    const third = plan.plan(NOW + 100, true)
    assert.deepEqual([third.start, third.nextAt], [[], undefined])
  })

  it('drains what it holds on stop, and counts what ends', () => {
    const plan = planner()
    for (const delivery of held(1, 10)) plan.hold(delivery)
    const { start } = plan.plan(NOW, false)
    assert.equal(plan.drain().length, 2)
    assert.deepEqual([plan.heldTotal, plan.runningTotal], [8, 8])
    for (const delivery of start) plan.ended(delivery, undefined, NOW)
    assert.deepEqual([plan.heldTotal, plan.runningTotal, plan.held(1)], [0, 0, 0])
  })
})
