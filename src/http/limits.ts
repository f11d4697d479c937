// Size limits, each stated once: the server options, the error messages and the OpenAPI text read them here.

/** Largest request body accepted (413 `payload_too_large` beyond). */
export const BODY_LIMIT_BYTES = 16 * 1024

/** Node's limit on the request line and headers together (its default `maxHeaderSize`; 431 beyond). */
export const HEADER_LIMIT_BYTES = 16 * 1024

/** A size as the messages and the document state it. */
export const inKiB = (bytes: number): string => `${bytes / 1024} KiB`

/**
 * The router's longest path parameter: longer than any path the header limit admits, so an over-long segment meets
 * authentication and validation (400) like any other bad value, not a router error.
 */
export const MAX_PATH_PARAMETER_LENGTH = HEADER_LIMIT_BYTES
