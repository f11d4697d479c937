// Rows of webhook_endpoints. Secrets arrive here sealed (secret-box.ts) and leave sealed.
import type { Selectable, Updateable } from 'kysely'
import type { Reader, WebhookEndpointTable, Writer } from '../../db/database.js'

export type WebhookRow = Selectable<WebhookEndpointTable>
export type NewWebhookRow = Omit<WebhookRow, 'id'>
export type WebhookChanges = Pick<
  Updateable<WebhookEndpointTable>,
  'url' | 'types' | 'description' | 'status' | 'updated_at'
>

export async function insertWebhook(trx: Writer, row: NewWebhookRow): Promise<WebhookRow> {
  return trx.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow()
}

/** How many endpoints exist, enabled or not. */
export async function countWebhooks(db: Reader): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

export async function findWebhook(db: Reader, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Endpoints in ascending id order, after `afterId` (the keyset cursor). */
export async function listWebhooks(
  db: Reader,
  query: { afterId: number | undefined; limit: number },
): Promise<WebhookRow[]> {
  let select = db.selectFrom('webhook_endpoints').selectAll().orderBy('id').limit(query.limit)
  if (query.afterId !== undefined) select = select.where('id', '>', query.afterId)
  return select.execute()
}

/**
 * Applies `changes`. With `enabledAfter`, an endpoint that was disabled receives from then on only the events
 * after that one (the newest readable event now), none of those made while it was disabled.
 */
export async function updateWebhook(
  trx: Writer,
  id: number,
  changes: WebhookChanges,
  enabledAfter?: number,
): Promise<WebhookRow | undefined> {
  return trx
    .updateTable('webhook_endpoints')
    .set((eb) =>
      enabledAfter === undefined
        ? changes
        : {
            ...changes,
            // The right-hand side reads the row as it was before this update.
            receives_after: eb
              .case()
              .when('status', '=', 'disabled')
              .then(enabledAfter)
              .else(eb.ref('receives_after'))
              .end(),
          },
    )
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

/**
 * Makes `secret` the endpoint's secret; the one it replaces keeps signing until `previousExpiresAt`. One
 * statement (the right-hand sides read the row as it was), so two rotations at once cannot lose a secret.
 */
export async function rotateWebhookSecret(
  trx: Writer,
  id: number,
  rotation: { secret: string; previousExpiresAt: string; now: string },
): Promise<WebhookRow | undefined> {
  return trx
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      secret: rotation.secret,
      previous_secret_expires_at: rotation.previousExpiresAt,
      updated_at: rotation.now,
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

/**
 * Deletes the endpoint; false when there was no such endpoint. Its deliveries and their log stay behind, never
 * claimed again (claims join enabled endpoints), until the purge removes them. Deleting them here too made this
 * transaction wait on delivery rows the worker was recording while the worker waited on rows this one had
 * deleted: a deadlock on PostgreSQL, answered 503 (found by the fuzzer). One row, and no lock the worker takes.
 */
export async function deleteWebhook(trx: Writer, id: number): Promise<boolean> {
  const deleted = await trx.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst()
  return deleted.numDeletedRows > 0n
}
