// The 415 of a PATCH operation (updatePet, updateWebhook): besides what every 415 may carry, Accept-Patch names
// the patch formats the operation takes (RFC 5789 section 2.2).
import type { TSchema } from 'typebox'
import { AcceptPatchHeader } from '../openapi/response-headers.js'
import { errorResponses, withHeaders } from './error.schema.js'

export const PATCH_UNSUPPORTED_MEDIA_TYPE: Record<number, TSchema> = withHeaders(
  errorResponses('unsupported_media_type'),
  { 'Accept-Patch': AcceptPatchHeader },
)
