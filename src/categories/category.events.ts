// The categories' events in the feed's contract: what their `data` holds (the composition builds the Event schema).
import { Type } from 'typebox'
import type { EventDataContribution } from '../events/event.schema.js'
import { named } from '../http/openapi/openapi-names.js'
import { CategorySchema } from './category.schema.js'

const CategoryEventDataSchema = named(
  'CategoryEventData',
  Type.Object(
    { category: CategorySchema },
    {
      description: 'For `category.*`: the category after the change (for `category.deleted`, its last state).',
      examples: [{ category: { id: 3, name: 'Dogs' } }],
    },
  ),
)

export const CATEGORY_EVENTS: EventDataContribution = {
  types: ['category.created', 'category.updated', 'category.deleted'],
  data: CategoryEventDataSchema,
}
