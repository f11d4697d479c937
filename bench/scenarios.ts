// What is measured: each scenario names the server it loads, the request sequence every connection cycles
// through, and a check of one real answer before any load (a benchmark of wrong answers is worthless).
import type { CursorWindow } from './deep-cursor.js'
import type { LoadRequest } from './load.js'
import { conditionalUpdates, deletes } from './maintenance.js'
import { CREATE_BODY, FILTER_STATUS, petAt } from './pets-data.js'

/**
 * The processes a run starts. `service` holds the seeded pets; `createService` a fresh store of its own;
 * `maintenanceService` a second seeded store, which the update and delete scenarios change;
 * `nginxOne` and `nginxTwo` are nginx in front of `service` alone and of `service` and a second instance;
 * `createServiceBefore` another build of the service (--before), on a fresh store of its own; `serviceBefore` that
 * build on the seeded store of `service`, for its reads; `minimal` (M) the least a server answering the contract's get
 * must do (bench/minimal-server.ts), on the same seeded store.
 */
export type TargetName =
  | 'baseline'
  | 'framework'
  | 'frameworkHeaders'
  | 'service'
  | 'createService'
  | 'createServiceBefore'
  | 'serviceBefore'
  | 'maintenanceService'
  | 'referenceList'
  | 'referenceCreate'
  | 'referencePostgres'
  | 'minimal'
  | 'nginxOne'
  | 'nginxTwo'

export interface ScenarioContext {
  /** Pets seeded into the service's store (ids 1 … pets), and into the maintenance service's. */
  pets: number
  /** autocannon connections: the update scenario gives each its own pet. */
  connections: number
  /** Unfiltered cursors over the last 10,000 pets (none closer to the end than DEEP_OFFSET), and over the first. */
  deep: CursorWindow
  early: CursorWindow
}

export interface Scenario {
  id: string
  label: string
  target: TargetName
  requests(context: ScenarioContext): LoadRequest[]
  /** The first request's expected status, and what its JSON body must satisfy. */
  expect: { status: number; body: (body: unknown, context: ScenarioContext) => string | undefined }
  /** Only on this store (the references are per store; several instances are the PostgreSQL path). */
  store?: 'sqlite' | 'postgres'
}

export const DEEP_OFFSET = 25

const list = (path: string): LoadRequest => ({ method: 'GET', path })
const create: LoadRequest = {
  method: 'POST',
  path: '/v1/pets',
  headers: { 'content-type': 'application/json' },
  body: CREATE_BODY,
}

/** A uniformly random existing pet, chosen per request: the same id every time would only measure one hot page. */
function randomGet(pets: number): LoadRequest {
  return {
    method: 'GET',
    path: '/v1/pets/1',
    setupRequest: (request: LoadRequest) => ({ ...request, path: `/v1/pets/${1 + Math.floor(Math.random() * pets)}` }),
  }
}

/** One of the window's cursors, chosen per request; the request as first built (the one checked) uses the first. */
function randomCursorPage({ cursors }: CursorWindow): LoadRequest {
  return {
    method: 'GET',
    path: `/v1/pets?cursor=${cursors[0] ?? ''}`,
    setupRequest: (request: LoadRequest) => ({
      ...request,
      path: `/v1/pets?cursor=${cursors[Math.floor(Math.random() * cursors.length)] ?? ''}`,
    }),
  }
}

function pageOf(firstId: number, length = 20) {
  return (body: unknown): string | undefined => {
    if (!Array.isArray(body) || body.length !== length) return `expected an array of ${length} pets`
    const first = body[0] as { id?: unknown } | undefined
    return first?.id === firstId
      ? undefined
      : `expected the page to start at id ${firstId}, got ${JSON.stringify(first)}`
  }
}

function samePet(expected: object) {
  return (body: unknown): string | undefined =>
    JSON.stringify(body) === JSON.stringify(expected)
      ? undefined
      : `expected ${JSON.stringify(expected)}, got ${JSON.stringify(body)}`
}

const isCreatedPet = (body: unknown): string | undefined =>
  typeof body === 'object' && body !== null && typeof (body as { id?: unknown }).id === 'number'
    ? undefined
    : `expected a created pet, got ${JSON.stringify(body)}`

/** Pet ids with FILTER_STATUS are 6, 16, 26, …: the first one after `afterId`. */
const firstFilteredAfter = (afterId: number) => afterId + ((6 - (afterId % 10) + 10) % 10 || 10)

export const SCENARIOS: Scenario[] = [
  {
    id: 'baseline',
    label: 'L: bare node:http, same 20-pet body',
    target: 'baseline',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
  },
  {
    id: 'framework',
    label: 'F: plain Fastify, same 20-pet body',
    target: 'framework',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
  },
  {
    id: 'framework-headers',
    label: "F′: plain Fastify, same body, the list's headers",
    target: 'frameworkHeaders',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
  },
  {
    id: 'list',
    label: 'list 20 (no filter)',
    target: 'service',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
  },
  {
    id: 'list-status',
    label: `list 20, status=${FILTER_STATUS}`,
    target: 'service',
    requests: () => [list(`/v1/pets?status=${FILTER_STATUS}`)],
    expect: { status: 200, body: pageOf(firstFilteredAfter(0)) },
  },
  {
    id: 'early',
    label: 'list 20, cursor page (first 10k)',
    target: 'service',
    requests: (context) => [randomCursorPage(context.early)],
    expect: { status: 200, body: (body, context) => pageOf(context.early.firstAfterId + 1)(body) },
  },
  {
    id: 'deep',
    label: 'list 20, cursor page (last 10k of N)',
    target: 'service',
    requests: (context) => [randomCursorPage(context.deep)],
    expect: { status: 200, body: (body, context) => pageOf(context.deep.firstAfterId + 1)(body) },
  },
  {
    id: 'get',
    label: 'get one (random id)',
    target: 'service',
    requests: (context) => [randomGet(context.pets)],
    // The check uses the request as sent before its first setupRequest: pet 1.
    expect: { status: 200, body: samePet(petAt(1)) },
  },
  {
    id: 'get-same',
    label: 'get one (the same id)',
    target: 'service',
    // The operation as a client polling one pet uses it: a read served from the cache while nothing changes.
    requests: () => [{ method: 'GET', path: '/v1/pets/1' }],
    expect: { status: 200, body: samePet(petAt(1)) },
  },
  {
    id: 'mixed',
    label: 'mixed 90/10: 5 list, 4 get, 1 create',
    target: 'service',
    requests: (context) => [
      list('/v1/pets'),
      randomGet(context.pets),
      list('/v1/pets'),
      randomGet(context.pets),
      list('/v1/pets'),
      randomGet(context.pets),
      list('/v1/pets'),
      randomGet(context.pets),
      list('/v1/pets'),
      create,
    ],
    expect: { status: 200, body: pageOf(1) },
  },
  {
    id: 'create',
    label: 'create (fresh store, durable)',
    target: 'createService',
    requests: () => [create],
    expect: { status: 201, body: isCreatedPet },
  },
  {
    id: 'update',
    label: 'update (PATCH with If-Match, durable)',
    target: 'maintenanceService',
    requests: (context) => conditionalUpdates(context.connections),
    expect: {
      status: 200,
      body: (body) =>
        (body as { name?: unknown } | null)?.name === 'Renamed 0'
          ? undefined
          : `expected the renamed pet 1, got ${JSON.stringify(body)}`,
    },
  },
  {
    id: 'delete',
    label: 'delete (a different pet each, durable)',
    target: 'maintenanceService',
    requests: (context) => deletes(context.pets),
    expect: {
      status: 204,
      body: (body) => (body === '' ? undefined : `expected no body, got ${JSON.stringify(body)}`),
    },
  },
  {
    id: 'create-before',
    label: 'create (fresh store, durable), --before build',
    target: 'createServiceBefore',
    requests: () => [create],
    expect: { status: 201, body: isCreatedPet },
  },
  {
    id: 'list-before',
    label: 'list 20 (no filter), --before build',
    target: 'serviceBefore',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
  },
  {
    id: 'get-before',
    label: 'get one (random id), --before build',
    target: 'serviceBefore',
    requests: (context) => [randomGet(context.pets)],
    expect: { status: 200, body: samePet(petAt(1)) },
  },
  {
    id: 'get-same-before',
    label: 'get one (the same id), --before build',
    target: 'serviceBefore',
    requests: () => [{ method: 'GET', path: '/v1/pets/1' }],
    expect: { status: 200, body: samePet(petAt(1)) },
  },
  {
    id: 'minimal-get',
    label: 'M: minimal server, get one (random id)',
    target: 'minimal',
    requests: (context) => [randomGet(context.pets)],
    expect: { status: 200, body: samePet(petAt(1)) },
  },
  {
    id: 'ref-list',
    label: 'ref: plain Fastify+SQLite list 20',
    target: 'referenceList',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
    store: 'sqlite',
  },
  {
    id: 'ref-create',
    label: 'ref: plain create, 1 fsync/request',
    target: 'referenceCreate',
    requests: () => [create],
    expect: { status: 201, body: isCreatedPet },
    store: 'sqlite',
  },
  {
    id: 'ref-pg-list',
    label: 'ref: plain Fastify+pg list 20',
    target: 'referencePostgres',
    requests: () => [list('/v1/pets')],
    expect: { status: 200, body: pageOf(1) },
    store: 'postgres',
  },
  {
    id: 'ref-pg-get',
    label: 'ref: plain Fastify+pg get (random id)',
    target: 'referencePostgres',
    requests: (context) => [randomGet(context.pets)],
    expect: { status: 200, body: samePet(petAt(1)) },
    store: 'postgres',
  },
  ...(['list', 'get'] as const).flatMap((kind) =>
    (
      [
        ['nginxOne', 1],
        ['nginxTwo', 2],
      ] as const
    ).map(([target, instances]): Scenario => ({
      id: `nginx-${kind}-${instances}`,
      label:
        `${kind === 'list' ? 'list 20' : 'get (random id)'} via nginx, ${instances} ` +
        `instance${instances > 1 ? 's' : ''}`,
      target,
      requests: (context) => [kind === 'list' ? list('/v1/pets') : randomGet(context.pets)],
      expect: { status: 200, body: kind === 'list' ? pageOf(1) : samePet(petAt(1)) },
      store: 'postgres',
    })),
  ),
]
