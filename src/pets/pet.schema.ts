import { Type, type Static } from 'typebox'
import { CursorParameter, MAX_PAGE_SIZE, pageLimit } from '../http/pagination.js'
import { documentedAs, named } from '../http/openapi/openapi-names.js'
import { Int64Id, VISIBLE_NAME_PATTERN, VISIBLE_NAME_RULE } from '../http/openapi/schema-primitives.js'
import { withPatternRule } from '../http/validation/validation-details.js'

export const PET_STATUSES = ['available', 'pending', 'sold'] as const
export const DEFAULT_PET_STATUS = 'available'

const PetStatusSchema = named(
  'PetStatus',
  Type.Unsafe<(typeof PET_STATUSES)[number]>({
    type: 'string',
    enum: [...PET_STATUSES],
    description:
      'Availability: `available` (can be ordered), `pending` (an order is placed), `sold` (its order was ' +
      'completed). Orders move it: available → pending when ordered, pending → sold when the order is completed, ' +
      'pending → available when it is cancelled. An animal created as `pending` or `sold` has no order.',
    examples: ['available'],
  }),
)

/** The text rule of a name (schema-primitives.ts says why). */
const PET_NAME_PATTERN = VISIBLE_NAME_PATTERN

const NAME_RULE =
  "The animal's name: 1 to 200 Unicode characters, at least one of them visible (not only white space or " +
  'invisible format characters: Unicode White_Space, Cf and Default_Ignorable_Code_Point), without control ' +
  'characters (Cc), unpaired surrogates (Cs) ' +
  'or bidirectional override and isolate characters (U+202A–U+202E, U+2066–U+2069).'

// The rule's pattern needs Unicode property classes (\p{…}), which some regular expression dialects reject: the
// document states the rule in words, with the pattern (ECMAScript, `u` flag) as `x-unicode-pattern` for tools
// that read it. The service enforces it all the same.
const PetName = documentedAs(
  withPatternRule(
    Type.String({ minLength: 1, maxLength: 200, pattern: PET_NAME_PATTERN, description: NAME_RULE, examples: ['Rex'] }),
    VISIBLE_NAME_RULE,
  ),
  {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description: NAME_RULE,
    'x-unicode-pattern': PET_NAME_PATTERN,
    examples: ['Rex'],
  },
)

const CategoryId = {
  ...Int64Id,
  description: 'Identifier of the category the animal belongs to (1 to 2^53−1).',
  examples: [3],
}

const PET_STATUS_WHEN_OMITTED = `Availability status; \`${DEFAULT_PET_STATUS}\` when omitted.`

export const NewPetSchema = named(
  'NewPet',
  Type.Object(
    {
      name: PetName,
      categoryId: CategoryId,
      // Validation fills in the default; the document states it as `x-default`, so that generators (which make a
      // property with a `default` required) keep it optional for clients, and the breaking-change gate compares it.
      status: Type.Optional(
        documentedAs(
          { ...PetStatusSchema, default: DEFAULT_PET_STATUS, description: PET_STATUS_WHEN_OMITTED },
          { ...PetStatusSchema, 'x-default': DEFAULT_PET_STATUS, description: PET_STATUS_WHEN_OMITTED },
        ),
      ),
    },
    {
      additionalProperties: false,
      description: 'An animal to add. Properties not listed here (a client-chosen `id` included) are refused.',
      examples: [{ name: 'Rex', categoryId: 3, status: 'available' }],
    },
  ),
)

// JSON Merge Patch (RFC 7396) of a pet: the properties to replace, each checked as in NewPet. Every property
// of a pet is required, so `null` (which would remove one) is refused, as is an empty patch (it changes nothing).
export const PetPatchSchema = named(
  'PetPatch',
  Type.Object(
    {
      name: Type.Optional(PetName),
      categoryId: Type.Optional(CategoryId),
      status: Type.Optional({
        ...PetStatusSchema,
        description:
          'Availability status. Refused (409) while the animal has a `placed` order: its status then follows the ' +
          'order.',
      }),
    },
    {
      additionalProperties: false,
      minProperties: 1,
      description:
        'The properties to change (JSON Merge Patch, RFC 7396): any non-empty subset of `name`, `categoryId` and ' +
        '`status`, each valid as in NewPet. Properties left out keep their value; `null` (removing a property), ' +
        '`id` and unknown properties are refused.',
      examples: [{ name: 'Rex the Brave', status: 'pending' }],
    },
  ),
)

/**
 * A response: open to additive change (no additionalProperties: false); the serialiser still sends exactly these
 * properties.
 */
export const PetSchema = named(
  'Pet',
  Type.Object(
    {
      id: {
        ...Int64Id,
        description: 'Unique identifier assigned by the service on creation (1 to 2^53−1); never reused.',
        examples: [12],
      },
      name: PetName,
      categoryId: { ...Int64Id, description: 'Identifier of the category the animal belongs to.', examples: [3] },
      status: PetStatusSchema,
    },
    {
      description: 'An animal in the catalogue.',
      examples: [{ id: 12, name: 'Rex', categoryId: 3, status: 'available' }],
    },
  ),
)

export const PetsSchema = named(
  'Pets',
  Type.Array(PetSchema, {
    maxItems: MAX_PAGE_SIZE,
    description: 'A page of animals in ascending id order.',
    examples: [
      [
        { id: 12, name: 'Rex', categoryId: 3, status: 'available' },
        { id: 14, name: 'Mia', categoryId: 1, status: 'pending' },
      ],
    ],
  }),
)

export const ListPetsQuery = Type.Object(
  {
    limit: pageLimit('animals'),
    status: Type.Optional({ ...PetStatusSchema, description: 'Only animals with this status.' }),
    cursor: Type.Optional(CursorParameter('Bound to the `status` and `categoryId` filters it was issued for.')),
    categoryId: Type.Optional({
      ...CategoryId,
      description: 'Only animals with this `categoryId` (whether or not a category record has that id).',
    }),
  },
  { additionalProperties: false },
)

export const PetIdParams = Type.Object(
  { petId: { ...Int64Id, description: 'The identifier of the animal (1 to 2^53−1).', examples: [12] } },
  { additionalProperties: false },
)

export type Pet = Static<typeof PetSchema>
export type NewPet = Static<typeof NewPetSchema>
export type PetPatch = Static<typeof PetPatchSchema>
