// The catalogue maintenance scenarios: each connection patches a pet of its own with If-Match (the ETag of its
// previous answer), so that every PATCH is a real, conditional change and none loses to another connection;
// deletes take pets from the end of the seeded range, one each, never the same twice.
import type { LoadRequest } from './load.js'
import { MERGE_PATCH_TYPE } from './pets-data.js'

/** Per connection (autocannon's context): the pet it patches and how many patches it sent. */
interface PatchingConnection {
  petId?: number
  patches?: number
}

/** The last ETag answered for each patched pet, across every run of the scenario (warm-up and rounds). */
const currentTags = new Map<number, string>()

/**
 * PATCH requests with If-Match, connection n patching pet n (1 … connections). A pet not patched yet in this run
 * goes with `If-Match: *`; every later request names the ETag the previous one answered.
 */
export function conditionalUpdates(connections: number): LoadRequest[] {
  let assigned = 0
  const tagOf = (petId: number) => currentTags.get(petId) ?? '*'
  return [
    {
      method: 'PATCH',
      path: '/v1/pets/1',
      headers: { 'content-type': MERGE_PATCH_TYPE, 'if-match': tagOf(1) },
      body: JSON.stringify({ name: 'Renamed 0' }),
      setupRequest: (request, context: PatchingConnection) => {
        context.petId ??= 1 + (assigned++ % connections)
        context.patches = (context.patches ?? 0) + 1
        return {
          ...request,
          path: `/v1/pets/${context.petId}`,
          headers: { ...request.headers, 'if-match': tagOf(context.petId) },
          body: JSON.stringify({ name: `Renamed ${context.patches}` }),
        }
      },
      onResponse: (_status, _body, context: PatchingConnection, headers) => {
        const tag = headers?.etag
        if (context.petId !== undefined && typeof tag === 'string') currentTags.set(context.petId, tag)
      },
    },
  ]
}

let nextDeleted: number | undefined

/**
 * DELETE requests, each of another pet, counting down from the last seeded one (the first request, checked, deletes
 * it).
 */
export function deletes(pets: number): LoadRequest[] {
  return [
    {
      method: 'DELETE',
      path: `/v1/pets/${pets}`,
      setupRequest: (request) => {
        nextDeleted ??= pets - 1
        return { ...request, path: `/v1/pets/${nextDeleted--}` }
      },
    },
  ]
}
