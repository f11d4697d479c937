import { Type, type Static } from 'typebox'
import { IfMatchHeader, IfMatchOnReadHeader, IfNoneMatchHeader } from '../http/entity-tag.schema.js'
import { CursorParameter, MAX_PAGE_SIZE, pageLimit } from '../http/pagination.js'
import { documentedAs, named } from '../http/openapi/openapi-names.js'
import { Int64Id, VISIBLE_NAME_PATTERN, VISIBLE_NAME_RULE } from '../http/openapi/schema-primitives.js'
import { withPatternRule } from '../http/validation/validation-details.js'
import { IdempotencyHeaders } from '../idempotency/idempotency.schema.js'

const MAX_CATEGORY_NAME_LENGTH = 100

// The same text rule as an animal's name (VISIBLE_NAME_PATTERN: schema-primitives.ts says why),
// shorter: a category name is a menu entry.
const NAME_RULE =
  `The category's name: 1 to ${MAX_CATEGORY_NAME_LENGTH} Unicode characters, at least one of them visible, without ` +
  'control characters, unpaired surrogates or bidirectional override and isolate characters (the same rule as an ' +
  "animal's name). Unique among categories ignoring case: `Dogs` and `DOGS` cannot both exist."

const CategoryName = documentedAs(
  withPatternRule(
    Type.String({
      minLength: 1,
      maxLength: MAX_CATEGORY_NAME_LENGTH,
      pattern: VISIBLE_NAME_PATTERN,
      description: NAME_RULE,
      examples: ['Dogs'],
    }),
    VISIBLE_NAME_RULE,
  ),
  {
    type: 'string',
    minLength: 1,
    maxLength: MAX_CATEGORY_NAME_LENGTH,
    description: NAME_RULE,
    'x-unicode-pattern': VISIBLE_NAME_PATTERN,
    examples: ['Dogs'],
  },
)

const CategoryIdValue = {
  ...Int64Id,
  description: 'The identifier of the category (1 to 2^53−1): the `categoryId` its animals carry.',
  examples: [3],
}

export const NewCategorySchema = named(
  'NewCategory',
  Type.Object(
    { name: CategoryName },
    {
      additionalProperties: false,
      description:
        'A category to add, or (PUT) the name to give it. Properties not listed here (an `id` included) are refused.',
      examples: [{ name: 'Dogs' }],
    },
  ),
)

/** A response: open to additive change; the serialiser still sends exactly these properties. */
export const CategorySchema = named(
  'Category',
  Type.Object(
    { id: CategoryIdValue, name: CategoryName },
    { description: 'A named group of animals.', examples: [{ id: 3, name: 'Dogs' }] },
  ),
)

export const CategoriesSchema = named(
  'Categories',
  Type.Array(CategorySchema, {
    maxItems: MAX_PAGE_SIZE,
    description: 'A page of categories in ascending id order.',
    examples: [
      [
        { id: 3, name: 'Dogs' },
        { id: 4, name: 'Cats' },
      ],
    ],
  }),
)

export const ListCategoriesQuery = Type.Object(
  { limit: pageLimit('categories'), cursor: Type.Optional(CursorParameter('')) },
  { additionalProperties: false },
)

export const CategoryIdParams = Type.Object({ categoryId: CategoryIdValue }, { additionalProperties: false })

export const CategoryReadHeaders = Type.Object({
  'If-Match': Type.Optional({
    ...IfMatchOnReadHeader,
    description:
      "Answers 412 `precondition_failed`, with the current `ETag` and no category, unless the category's current " +
      'ETag is one of those listed (strong comparison) or the value is `*`. Evaluated before `If-None-Match`.',
  }),
  'If-None-Match': Type.Optional({
    ...IfNoneMatchHeader,
    description:
      "Answers 304 Not Modified, without a body, when the category's current ETag is one of those listed (weak " +
      'comparison) or the value is `*`; otherwise the category as usual.',
  }),
})

const IF_MATCH =
  "Makes the change conditional: it is made only if the category's current ETag is one of those listed (strong " +
  'comparison), or, with `*`, if the category exists. Otherwise 412 `precondition_failed`, and nothing changes.'

export const CategoryDeleteHeaders = Type.Object({
  ...IdempotencyHeaders.properties,
  'If-Match': Type.Optional({ ...IfMatchHeader, description: IF_MATCH }),
})

export const CategoryPutHeaders = Type.Object({
  ...CategoryDeleteHeaders.properties,
  'If-None-Match': Type.Optional(
    Type.Literal('*', {
      description: 'Only `*`: create the category, and answer 412 `precondition_failed` if it exists already.',
      examples: ['*'],
    }),
  ),
})

export type Category = Static<typeof CategorySchema>
export type NewCategory = Static<typeof NewCategorySchema>
