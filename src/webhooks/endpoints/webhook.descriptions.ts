// The webhook endpoint operations' descriptions in the OpenAPI document: prose, kept out of the route definitions.
import { MERGE_PATCH } from '../../http/json/media-type.js'
import { BETA_NOTE } from '../../http/openapi/stability.js'
import { MAX_WEBHOOK_ENDPOINTS } from './webhook.service.js'

export const DESCRIPTIONS = {
  createWebhook:
    `${BETA_NOTE}\n\nFrom now on, every event of the subscribed types is POSTed to \`url\` (Standard ` +
    `Webhooks: \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`). ` +
    'The answer holds the signing `secret`, shown only here (and after a rotation): store it. Safe to ' +
    `retry with an \`Idempotency-Key\`. There may be at most ${MAX_WEBHOOK_ENDPOINTS} endpoints, enabled or not: ` +
    'the next one is refused with 409 `conflict` until one is deleted.',
  listWebhooks:
    `${BETA_NOTE}\n\nEndpoints in ascending id order, without their secrets. When more exist, \`Link: <…>; ` +
    `rel="next"\` points at the next page.`,
  getWebhook: `${BETA_NOTE}\n\nThe endpoint, without its secret.`,
  updateWebhook:
    `${BETA_NOTE}\n\nChanges \`url\`, \`types\`, \`description\` or \`status\` with a JSON Merge Patch ` +
    `(RFC 7396; \`${MERGE_PATCH}\`, or \`application/json\` read the same way): the properties given ` +
    'replace the stored ones, `null` removes `types` (every type) or `description`. New events follow the new ' +
    'settings; pending deliveries go to the new `url` from their next attempt on. ' +
    'Disabling pauses the endpoint: events committed meanwhile are not delivered to it, deliveries already ' +
    'pending wait until it is enabled again. Safe to retry with an `Idempotency-Key`.',
  deleteWebhook:
    `${BETA_NOTE}\n\nDeletes the endpoint with its pending deliveries and its delivery log: none is ` +
    'attempted again (an attempt in progress may still arrive), and the rows are removed from storage in the ' +
    `background. From then on it is 404. No request body. Safe to retry with an \`Idempotency-Key\`.`,
  /** `overlap`: how long the previous secret keeps signing, as the operator configured it. */
  rotateWebhookSecret: (overlap: string) =>
    `${BETA_NOTE}\n\nGives the endpoint a new secret, shown only in this answer. For ${overlap} the ` +
    `previous secret keeps signing beside it (\`webhook-signature\` then carries two \`v1,…\` signatures, ` +
    'and either verifies), so the receiver can switch over without losing a delivery; then only the new ' +
    "one signs. A second rotation ends the first one's overlap. No request body. Safe to retry with an " +
    '`Idempotency-Key`.',
  rotatedWebhook:
    'The endpoint with its new secret; `previousSecretExpiresAt` says until when the previous one signs too.',
}
