// The conditional request headers and the ETag response header, as they appear in the route schemas and so in
// the OpenAPI document. A value that breaks the pattern is refused with 400 (`details` path `header/if-match`).
import { Type } from 'typebox'
import { ENTITY_TAG_LIST_PATTERN } from './entity-tag.js'
import { ETagHeader } from './openapi/response-headers.js'
import { withPatternRule } from './validation/validation-details.js'

const LIST_RULE =
  'must be * or a comma-separated list of entity tags, each in double quotes as the ETag header gives it (e.g. ' +
  '"12.3")'

const LIST_SYNTAX =
  '`*`, or one or more entity tags separated by commas (RFC 9110 §13.1.1), each in double quotes as the ETag ' +
  'header gives it'

/** A conditional request header: `*` or a list of entity tags, refused with LIST_RULE otherwise. */
const entityTagList = (description: string) =>
  Type.Optional(
    withPatternRule(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        pattern: ENTITY_TAG_LIST_PATTERN,
        description,
        examples: ['"12.3"'],
      }),
      LIST_RULE,
    ),
  )

export const IfMatchHeader = entityTagList(
  `Makes the change conditional: it is made only if the animal's current ETag is one of those listed (strong ` +
    `comparison), or, with \`*\`, if the animal exists. Otherwise 412 \`precondition_failed\`, with the current ` +
    `\`ETag\` when the animal still exists, and nothing changes. ${LIST_SYNTAX}. Without the header the change ` +
    'is unconditional.',
)

export const IfMatchOnReadHeader = entityTagList(
  `Answers 412 \`precondition_failed\`, with the current \`ETag\` and no animal, unless the animal's current ETag ` +
    `is one of those listed (strong comparison) or the value is \`*\`: a read of exactly the version a client ` +
    `holds. Evaluated before \`If-None-Match\`. ${LIST_SYNTAX}.`,
)

export const IfNoneMatchHeader = entityTagList(
  `Answers 304 Not Modified, without a body, when the animal's current ETag is one of those listed (weak ` +
    `comparison) or the value is \`*\`; otherwise the animal as usual. ${LIST_SYNTAX}.`,
)

export const ETagHeaderSchema = { ETag: ETagHeader }
