// Requests the schema refuses (a wrong type, a missing or unknown property, a malformed If-Match, a condition the
// operation does not take): each is 400 with its exact details, and changes nothing, so the model is left as it is.
import type { ModelRequest } from './idempotency-model.js'
import { livePetId } from './model-choices.js'
import type { Random } from './seeded-random.js'
import { errorAnswer, invalid, type Answer, type ShopState } from './shop-state.js'

type Refusal = (state: ShopState, random: Random) => { request: ModelRequest; expected: Answer }

const IF_MATCH_FORMAT =
  'must be * or a comma-separated list of entity tags, each in double quotes as the ETag header gives it ' +
  '(e.g. "12.3")'

const REFUSALS: Refusal[] = [
  () => ({
    request: { method: 'POST', path: '/v1/pets', body: { name: 5, categoryId: 1 } },
    expected: invalid('body/name', 'must be string'),
  }),
  () => ({
    request: { method: 'POST', path: '/v1/pets', body: { name: 'Quoted', categoryId: '5' } },
    expected: invalid('body/categoryId', 'must be integer'),
  }),
  () => ({
    request: { method: 'POST', path: '/v1/pets', body: { name: 'Nowhere' } },
    expected: invalid('body/categoryId', 'is required'),
  }),
  () => ({
    request: { method: 'POST', path: '/v1/pets', body: { name: 'Lost', categoryId: 2, status: 'lost' } },
    expected: invalid('body/status', 'must be one of "available", "pending", "sold"'),
  }),
  (state, random) => ({
    request: { method: 'PATCH', path: `/v1/pets/${livePetId(state, random)}`, body: {} },
    expected: invalid('body', 'must NOT have fewer than 1 properties'),
  }),
  (state, random) => ({
    request: { method: 'PATCH', path: `/v1/pets/${livePetId(state, random)}`, body: { categoryId: 2.5 } },
    expected: invalid('body/categoryId', 'must be integer'),
  }),
  (state, random) => ({
    request: {
      method: 'PATCH',
      path: `/v1/pets/${livePetId(state, random)}`,
      body: { name: 'Unquoted' },
      headers: { 'if-match': '1.1' },
    },
    expected: invalid('header/if-match', IF_MATCH_FORMAT),
  }),
  () => ({
    request: {
      method: 'POST',
      path: '/v1/pets',
      body: { name: 'Tagged', categoryId: 1 },
      headers: { 'if-match': '*' },
    },
    expected: errorAnswer(
      400,
      'invalid_request',
      'This operation does not take If-Match: its resource has no entity tag to compare. Nothing was changed.',
      { details: [{ path: 'header/if-match', message: 'is not supported by this operation' }] },
    ),
  }),
  () => ({
    request: { method: 'POST', path: '/v1/store/orders', body: { petId: 'one' } },
    expected: invalid('body/petId', 'must be integer'),
  }),
  (state, random) => ({
    request: { method: 'POST', path: '/v1/store/orders', body: { petId: livePetId(state, random), quantity: 0 } },
    expected: invalid('body/quantity', 'must be >= 1'),
  }),
  () => ({
    request: { method: 'POST', path: '/v1/categories', body: { name: 7 } },
    expected: invalid('body/name', 'must be string'),
  }),
  (state, random) => ({
    request: { method: 'PUT', path: `/v1/categories/${1 + random.below(20)}`, body: { id: 3, name: 'Chosen' } },
    expected: invalid('body/id', 'is not allowed'),
  }),
]

export function refusal(state: ShopState, random: Random): { request: ModelRequest; expected: Answer } {
  return random.pick(REFUSALS)(state, random)
}
