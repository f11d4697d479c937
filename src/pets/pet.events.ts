// The pets' events in the feed's contract: what their `data` holds (the composition builds the Event schema).
import { Type } from 'typebox'
import type { EventDataContribution } from '../events/event.schema.js'
import { named } from '../http/openapi/openapi-names.js'
import { PetSchema } from './pet.schema.js'

/** Responses, so open to additive change; the serialiser still sends exactly these properties. */
const PetEventDataSchema = named(
  'PetEventData',
  Type.Object(
    { pet: PetSchema },
    {
      description: 'For `pet.*`: the animal after the change (for `pet.deleted`, its last state).',
      examples: [{ pet: { id: 12, name: 'Rex', categoryId: 3, status: 'available' } }],
    },
  ),
)

export const PET_EVENTS: EventDataContribution = {
  types: ['pet.created', 'pet.updated', 'pet.deleted'],
  data: PetEventDataSchema,
}
