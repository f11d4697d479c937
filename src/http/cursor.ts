// The opaque pagination cursor: the last id of a page and the filter it belongs to, signed with HMAC-SHA256
// so that a client can neither forge a position nor carry a cursor over to another filter. Each collection has
// its own scope (`pets`, `orders`), part of what is signed, so a cursor of one is never accepted by another.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { ApiError } from './errors/errors.js'

const SIGNATURE_BYTES = 16

/** A collection's status filter (lower-case letters); `never` (the default) for a collection without one. */
export interface CursorPosition<Status extends string = never> {
  afterId: number
  status: Status | undefined
  /** A collection's second filter, an id (pets: categoryId); absent for collections without one. */
  categoryId?: number | undefined
}

export interface CursorCodec<Status extends string = never> {
  encode(position: CursorPosition<Status>): string
  /** The id to continue after, for a cursor issued for this same filter; a 400 ApiError otherwise. */
  decode(cursor: string, status: Status | undefined, categoryId?: number): number
}

export function createCursorCodec<Status extends string = never>(secret: Buffer, scope: string): CursorCodec<Status> {
  const sign = (payload: string) =>
    createHmac('sha256', secret).update(`${scope}\n${payload}`).digest().subarray(0, SIGNATURE_BYTES)

  const invalid = () =>
    new ApiError('invalid_request', 'The cursor is not valid: use the Link header of a previous page unchanged.', {
      details: [{ path: 'query/cursor', message: 'is not a cursor this service issued' }],
    })

  return {
    encode({ afterId, status, categoryId }) {
      // Without a category the payload is as it was before that filter existed: earlier cursors stay valid.
      const payload = `${afterId}.${status ?? ''}${categoryId === undefined ? '' : `.${categoryId}`}`
      return `${Buffer.from(payload).toString('base64url')}.${sign(payload).toString('base64url')}`
    },
    decode(cursor, status, categoryId) {
      const [encodedPayload, encodedSignature, extra] = cursor.split('.')
      if (encodedPayload === undefined || encodedSignature === undefined || extra !== undefined) throw invalid()
      const payload = Buffer.from(encodedPayload, 'base64url').toString()
      const signature = Buffer.from(encodedSignature, 'base64url')
      // Node's base64 decoder skips what it cannot read (`=`, `!`, spaces) and the unused low bits of the last
      // character, so many texts decode to the one signed cursor. Only the exact text encode() wrote is one.
      if (
        signature.toString('base64url') !== encodedSignature ||
        Buffer.from(payload).toString('base64url') !== encodedPayload
      )
        throw invalid()
      const expected = sign(payload)
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) throw invalid()
      const match = /^([1-9][0-9]{0,15})\.([a-z]*)(?:\.([1-9][0-9]{0,15}))?$/.exec(payload)
      const afterId = Number(match?.[1])
      if (!match || !Number.isSafeInteger(afterId)) throw invalid()
      const [, , issuedStatus, issuedCategory] = match
      if ((issuedStatus || undefined) !== status || issuedCategory !== categoryId?.toString()) {
        const filters = [
          ...(issuedStatus ? [`status=${issuedStatus}`] : []),
          ...(issuedCategory ? [`categoryId=${issuedCategory}`] : []),
        ]
        throw new ApiError(
          'invalid_request',
          filters.length > 0
            ? `The cursor was issued for ${filters.join(' and ')}; repeat that filter or start without a cursor.`
            : 'The cursor was issued without a filter; send it without one, or start without a cursor.',
          {
            details: [{ path: 'query/cursor', message: 'belongs to another filter' }],
          },
        )
      }
      return afterId
    },
  }
}
