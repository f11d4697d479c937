// A shop file of a schema before 0014_category_version_floor has no floor for the versions of new categories:
// its counter row loads with 0, and a category named again under the id of one the shop deleted would start at
// version 1 again, repeating that category's ETags. The floor is set here as the migration sets it on an upgraded
// database (see it for why the bound holds): no version ever reached exceeds the number of events ever recorded.
// How each store says that bound is the session's (db/move-session.ts).
import type { MoveSession } from '../db/move-session.js'

const FIRST_SCHEMA_WITH_FLOOR = '0014_category_version_floor'

/** After the load, before the commit: the file's events, retention mark and waiting events are in place. */
export async function setVersionFloorOfEarlierFile(session: MoveSession, fileSchema: string): Promise<void> {
  if (fileSchema >= FIRST_SCHEMA_WITH_FLOOR) return
  await session.setCategoryVersionFloorToEventBound()
}
