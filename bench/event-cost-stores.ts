// The stores of npm run bench:event-cost (event-cost.ts): one that drops every event row inserted into it, and
// stores filled with events as the build that migrated them writes them.
import SqliteDatabase from 'better-sqlite3'
import pg from 'pg'
import type { BenchStore } from './seed.js'

/** Runs `statements` on the store's database, in order. */
export async function execute(store: BenchStore, statements: string[]): Promise<void> {
  if (store.sqlitePath) {
    const database = new SqliteDatabase(store.sqlitePath)
    try {
      database.transaction(() => statements.forEach((statement) => database.exec(statement)))()
    } finally {
      database.close()
    }
    return
  }
  const client = new pg.Client({ connectionString: store.databaseUrl })
  await client.connect()
  try {
    for (const statement of statements) await client.query(statement)
  } finally {
    await client.end()
  }
}

export const DROP_EVENT_ROWS = {
  sqlite: ['create trigger bench_drop_events before insert on events begin select raise(ignore); end'],
  // Where events wait for their ids in event_inbox, that is where the writers insert them.
  postgres: [
    'create function bench_drop_event() returns trigger language plpgsql as $$ begin return null; end $$',
    `do $$ begin
      if to_regclass('event_inbox') is not null then
        create trigger bench_drop_events before insert on event_inbox for each row execute function bench_drop_event();
      else
        create trigger bench_drop_events before insert on events for each row execute function bench_drop_event();
      end if;
    end $$`,
  ],
}

/** The data a pet.created of pet `n` carries (the feed sends it as stored). */
const eventData = (n: number) => `{"pet":{"id":${n},"name":"Pet ${n}","categoryId":1,"status":"available"}}`

/** Fills the store with `count` pet.created events, as the build that migrated it writes them. */
export async function fillEvents(store: BenchStore, count: number): Promise<void> {
  const occurredAt = new Date().toISOString()
  if (store.sqlitePath) {
    const database = new SqliteDatabase(store.sqlitePath)
    try {
      const insert = database.prepare('insert into events (type, occurred_at, data) values (?, ?, ?)')
      database.transaction(() => {
        for (let n = 1; n <= count; n++) insert.run('pet.created', occurredAt, eventData(n))
      })()
      database.pragma('wal_checkpoint(TRUNCATE)')
    } finally {
      database.close()
    }
    return
  }
  const data = `'{"pet":{"id":' || n || ',"name":"Pet ' || n || '","categoryId":1,"status":"available"}}'`
  // With the service's own ids (a seq column), rows are written without one and numbered by the service (a build
  // with event_inbox moves them there on insert, as it does for every event written without an id).
  await execute(store, [
    `do $$ begin
      if exists (select 1 from information_schema.columns where table_schema = current_schema()
          and table_name = 'events' and column_name = 'seq') then
        insert into events (type, occurred_at, data)
          select 'pet.created', '${occurredAt}', ${data} from generate_series(1, ${count}) as n;
      else
        insert into events (id, type, occurred_at, data)
          select n, 'pet.created', '${occurredAt}', ${data} from generate_series(1, ${count}) as n;
      end if;
    end $$`,
    'analyze events',
  ])
}
