// Schema pieces both the endpoint and the delivery schemas are written with.
import { Type } from 'typebox'
import { Int64Id } from '../../http/openapi/schema-primitives.js'

// The longest date-time the service writes: RFC 3339, UTC, milliseconds (`2026-05-01T08:00:00.000Z`).
const DATE_TIME_LENGTH = 24
export const DateTime = (description: string, example: string) =>
  Type.String({ format: 'date-time', maxLength: DATE_TIME_LENGTH, description, examples: [example] })
export const Nullable = <T>(schema: Record<string, unknown> & { type: string }, description: string) =>
  Type.Unsafe<T | null>({ ...schema, type: [schema.type, 'null'], description })
export const NullableDateTime = (description: string, example: string | null) =>
  Nullable<string>(
    { type: 'string', format: 'date-time', maxLength: DATE_TIME_LENGTH, examples: [example] },
    description,
  )

export const WebhookId = { ...Int64Id, description: "The endpoint's id (1 to 2^53−1).", examples: [3] }
