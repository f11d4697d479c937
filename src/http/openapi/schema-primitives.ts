// Schemas shared by every resource: ids and the empty query string.
import { Type } from 'typebox'

/**
 * int64 ids are limited to 1 … 2^53−1: the range every JSON client (JavaScript included) reads exactly.
 * A larger literal would be rounded by most parsers, so the service refuses it instead of storing a neighbour.
 */
export const MAX_INT64_ID = Number.MAX_SAFE_INTEGER

export const Int64Id = Type.Integer({ format: 'int64', minimum: 1, maximum: MAX_INT64_ID })

/** The query string of an operation that takes no parameters: any parameter is refused (400). */
export const NoQuery = Type.Object({}, { additionalProperties: false })
