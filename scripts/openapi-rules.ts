// The breaking-change rules the diff tool (api-smart-diff) is blind to. It pairs schemas by similarity, so a
// response property whose type alone changed (boolean → string) or a property made required while its other
// keywords stayed can pass; and it knows nothing of `webhooks`, callbacks or the component list. These rules walk
// both documents side by side instead, in the direction the data flows:
// - what the service writes (response bodies and headers, webhook and callback payloads and headers) may not gain
//   a type or an enum value, lose a property or header, or make a required property or header optional;
// - what the service reads (parameters, request bodies, what a receiver answers a webhook) may not lose a type
//   or an enum value, refuse a property it accepted (additionalProperties made false included), or require a field,
//   parameter or body it did not;
// - a keyword these rules do not compare in detail (UNCOMPARED: not, if/then/else, dependentRequired, …) may not
//   appear or change in what the service reads, nor disappear or change in what it writes; a boolean schema is
//   read as the object schema it means (true: {}, false: {not: {}});
// - no operation (in paths, webhooks or callbacks), request or response media type, success response, component
//   schema or component schema property may disappear, and no operation may change its operationId;
// - an operation may not need a scope (`x-required-scope`) other than the one it needed, nor one where it needed none;
// - a format, a pattern (`pattern` or `x-unicode-pattern`) or a bound (BOUNDS) may not be added to or tightened in
//   what the service reads, nor removed from or loosened in what it writes; a bound is compared as the range it
//   leaves, so minimum 1 → exclusiveMinimum 0 on an integer is no change;
// - in what the service reads, the value it uses when a property is left out (`default`, or `x-default` where a
//   stated `default` would make generators require the property) may not change or disappear: a request that leaves
//   the property out would be taken differently.
// Each change is reported with a `/`-joined path, like the diff tool's, so that one acceptance list covers both.

import { isDeepStrictEqual } from 'node:util'

type Json = Record<string, unknown>

export interface RuleChange {
  action: 'add' | 'remove' | 'replace'
  path: string
  /** What the changed place holds in the current document, where a recorded decision may name it (`to`). */
  value?: unknown
  description: string
}

/** `writes`: the service produces this data (clients read it); `reads`: the service consumes it. */
type Direction = 'writes' | 'reads'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const objectAt = (node: Json, key: string): Json => (isObject(node[key]) ? node[key] : {})
const listAt = (node: Json, key: string): unknown[] => (Array.isArray(node[key]) ? node[key] : [])

function typesOf(schema: Json): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type, ...(schema.nullable === true ? ['null'] : [])]
  if (Array.isArray(schema.type)) return schema.type.map(String)
  return undefined
}

/** The values a schema allows when it lists them (`enum`, or `const`), as JSON text for comparing. */
function valuesOf(schema: Json): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value))
  if ('const' in schema) return [JSON.stringify(schema.const)]
  return undefined
}

/** The patterns a schema states, with the keyword stating each: `pattern` and `x-unicode-pattern` (see constraints). */
function patternsOf(schema: Json): Array<{ keyword: string; pattern: string }> {
  return ['pattern', 'x-unicode-pattern'].flatMap((keyword) =>
    typeof schema[keyword] === 'string' ? [{ keyword, pattern: schema[keyword] }] : [],
  )
}

/**
 * Keywords that refuse values, which these rules do not compare in detail: which values two of them allow cannot be
 * told in general, so one added or changed in what the service reads, or removed or changed in what it writes, is a
 * break (the diff tool misses most of them: dependentRequired, if/then, prefixItems, contains, unevaluated*).
 */
const UNCOMPARED = [
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'prefixItems',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]

/** Where a schema states the value the service takes when a request leaves the property out (see defaults). */
const DEFAULT_KEYWORDS = ['default', 'x-default']

/** A boolean schema as the object schema it means: true takes any value, false none. */
const asObject = (schema: unknown): unknown => (schema === true ? {} : schema === false ? { not: {} } : schema)

/** A bound as one keyword states it: its value, and whether the value itself is ruled out. */
interface Limit {
  value: number
  exclusive: boolean
}

/** Whether the bound `is` lets less through than `was` (both stated). */
type Tighter = (was: Limit, is: Limit) => boolean

const raised: Tighter = (was, is) => is.value > was.value || (is.value === was.value && is.exclusive && !was.exclusive)
const lowered: Tighter = (was, is) => is.value < was.value || (is.value === was.value && is.exclusive && !was.exclusive)
/** `multipleOf`: tighter unless every multiple of the old value is one of the new (2 → 4 is tighter, 4 → 2 not). */
const notDividing: Tighter = (was, is) => {
  const quotient = was.value / is.value
  return Math.abs(quotient - Math.round(quotient)) > 1e-9 * Math.max(1, Math.abs(quotient))
}
/** `uniqueItems`: only `true` bounds, so two stated ones are the same. */
const same: Tighter = () => false

/**
 * The bounds: the keywords that state each (several together: the tightest applies) and how two compare. A lower and
 * an upper bound are compared with their exclusive forms, as the range they leave: minimum 1 and exclusiveMinimum 0
 * differ on a number (0.5), not on an integer.
 */
const BOUNDS: Array<[string[], Tighter]> = [
  [['minLength'], raised],
  [['maxLength'], lowered],
  [['minimum', 'exclusiveMinimum'], raised],
  [['maximum', 'exclusiveMaximum'], lowered],
  [['multipleOf'], notDividing],
  [['minItems'], raised],
  [['maxItems'], lowered],
  [['uniqueItems'], same],
  [['minContains'], raised],
  [['maxContains'], lowered],
  [['minProperties'], raised],
  [['maxProperties'], lowered],
]

/**
 * The bound `keyword` states in `schema`, if it states one. An integer's range bounds are taken as the inclusive
 * ones they amount to: exclusiveMinimum e is minimum floor(e) + 1, exclusiveMaximum e is maximum ceil(e) - 1.
 */
function limitOf(schema: Json, keyword: string): Limit | undefined {
  const value = schema[keyword]
  // uniqueItems: true is a bound, false none; the value is never compared (`same`).
  if (keyword === 'uniqueItems') return value === true ? { value: 1, exclusive: false } : undefined
  if (typeof value !== 'number') return undefined
  const types = typesOf(schema)
  const integer = types !== undefined && types.includes('integer') && !types.includes('number')
  if (!integer) return { value, exclusive: keyword === 'exclusiveMinimum' || keyword === 'exclusiveMaximum' }
  const inclusive: Record<string, number> = {
    minimum: Math.ceil(value),
    exclusiveMinimum: Math.floor(value) + 1,
    maximum: Math.floor(value),
    exclusiveMaximum: Math.ceil(value) - 1,
  }
  return { value: inclusive[keyword] ?? value, exclusive: false }
}

/** The bound `keywords` state together in `schema`, and which of them state it (the others let more through). */
function boundOf(schema: Json, keywords: string[], tighter: Tighter): { limit: Limit; keywords: string[] } | undefined {
  const limits = keywords.flatMap((keyword) => {
    const limit = limitOf(schema, keyword)
    return limit === undefined ? [] : [{ keyword, limit }]
  })
  const tightest = limits.reduce<Limit | undefined>(
    (bound, { limit }) => (bound === undefined || tighter(bound, limit) ? limit : bound),
    undefined,
  )
  if (tightest === undefined) return undefined
  const binding = limits.filter(({ limit }) => !tighter(limit, tightest)).map(({ keyword }) => keyword)
  return { limit: tightest, keywords: binding }
}

/** How a schema states a bound, for a description: `minimum 1`, `none`. */
const stated = (schema: Json, keywords: string[]): string =>
  keywords
    .filter((keyword) => schema[keyword] !== undefined)
    .map((keyword) => `${keyword} ${JSON.stringify(schema[keyword])}`)
    .join(' and ') || 'none'

class Walk {
  readonly changes: RuleChange[] = []
  /** The `/`-joined path of each bound keyword (see BOUNDS) and `type` compared, whether it changed or not. */
  readonly judged = new Set<string>()

  private report(action: RuleChange['action'], path: string[], description: string, value?: unknown): void {
    this.changes.push({ action, path: path.join('/'), description, value })
  }

  schema(wasSchema: unknown, isSchema: unknown, path: string[], direction: Direction): void {
    const [before, after] = [asObject(wasSchema), asObject(isSchema)]
    if (!isObject(before) || !isObject(after)) return
    this.types(before, after, path, direction)
    this.values(before, after, path, direction)
    this.constraints(before, after, path, direction)
    this.uncompared(before, after, path, direction)
    this.defaults(before, after, path, direction)
    this.properties(before, after, path, direction)
    if (isObject(before.items)) this.schema(before.items, after.items, [...path, 'items'], direction)
    // Absent, additionalProperties takes any value (true): a map whose values were strings may send anything now.
    if (isObject(before.additionalProperties))
      this.schema(
        before.additionalProperties,
        after.additionalProperties ?? true,
        [...path, 'additionalProperties'],
        direction,
      )
    for (const combiner of ['anyOf', 'oneOf']) this.branches(before, after, [...path, combiner], direction)
    // Every branch of an allOf must hold: one added is compared with the empty schema it narrows (what the service
    // reads may now refuse more), one removed as replaced by the empty schema.
    const [wasAll, isAll] = [listAt(before, 'allOf'), listAt(after, 'allOf')]
    for (let index = 0; index < Math.max(wasAll.length, isAll.length); index++)
      this.schema(wasAll[index] ?? {}, isAll[index] ?? {}, [...path, 'allOf', String(index)], direction)
  }

  /** Alternatives, paired by position: written data may not gain one (a shape clients do not know). */
  private branches(before: Json, after: Json, path: string[], direction: Direction): void {
    const combiner = path.at(-1) ?? ''
    const [was, is] = [listAt(before, combiner), listAt(after, combiner)]
    was.forEach((branch, index) => this.schema(branch, is[index], [...path, String(index)], direction))
    if (direction === 'writes' && was.length > 0)
      for (let index = was.length; index < is.length; index++)
        this.report('add', [...path, String(index)], `the service may now send a shape clients do not know`)
  }

  private types(before: Json, after: Json, path: string[], direction: Direction): void {
    this.judged.add([...path, 'type'].join('/'))
    const [was, is] = [typesOf(before), typesOf(after)]
    if (was === undefined && is === undefined) return
    // Written data may not take a type a client did not expect; read data may not refuse a type it took.
    const [wider, narrower] = direction === 'writes' ? [is, was] : [was, is]
    if (narrower === undefined) return
    // Every integer is a number: where `number` is allowed, nothing `integer` allowed is new or refused.
    const covered = (type: string) => narrower.includes(type) || (type === 'integer' && narrower.includes('number'))
    const gained = (wider ?? ['any']).filter((type) => !covered(type))
    if (gained.length > 0)
      this.report(
        'replace',
        [...path, 'type'],
        `type ${JSON.stringify(was ?? 'any')} became ${JSON.stringify(is ?? 'any')} in what the service ${direction}`,
        after.type,
      )
  }

  private values(before: Json, after: Json, path: string[], direction: Direction): void {
    const [was, is] = [valuesOf(before), valuesOf(after)]
    if (direction === 'writes' && was !== undefined) {
      for (const value of is ?? ['(any value)'])
        if (!was.includes(value))
          this.report(
            'add',
            [...path, 'enum'],
            `the service may now send ${value}, which clients do not know`,
            after.enum,
          )
    }
    if (direction === 'reads' && is !== undefined) {
      if (was === undefined)
        this.report('add', [...path, 'enum'], `the service now accepts only ${is.map(String).join(', ')}`, after.enum)
      else
        for (const value of was)
          if (!is.includes(value))
            this.report('remove', [...path, 'enum'], `the service no longer accepts ${value}`, after.enum)
    }
  }

  /**
   * `format`, `pattern` and the bounds (BOUNDS). Data the service reads may not gain one or have it tightened; data
   * it writes may not lose one or have it loosened. A format or pattern replaced by another is reported either way:
   * which texts two patterns allow cannot be compared in general.
   */
  private constraints(before: Json, after: Json, path: string[], direction: Direction): void {
    const [was, is] = [before.format, after.format]
    if (was !== is) {
      if (was !== undefined && is !== undefined)
        this.report('replace', [...path, 'format'], `format ${JSON.stringify(was)} became ${JSON.stringify(is)}`, is)
      else if (direction === 'reads' && is !== undefined)
        this.report('add', [...path, 'format'], `the service now reads only format ${JSON.stringify(is)}`, is)
      else if (direction === 'writes' && was !== undefined)
        this.report(
          'remove',
          [...path, 'format'],
          `the service may now send what format ${JSON.stringify(was)} ruled out`,
        )
    }
    // A pattern stated as `x-unicode-pattern` (one that needs Unicode property classes) binds as `pattern` does:
    // the two are compared together, so moving a pattern from one keyword to the other is no change.
    const [wasPatterns, isPatterns] = [patternsOf(before), patternsOf(after)]
    const added = isPatterns.filter((each) => !wasPatterns.some((other) => other.pattern === each.pattern))
    const removed = wasPatterns.filter((each) => !isPatterns.some((other) => other.pattern === each.pattern))
    const [first, lost] = [added[0], removed[0]]
    if (first !== undefined && lost !== undefined)
      this.report(
        'replace',
        [...path, first.keyword],
        `${lost.keyword} ${JSON.stringify(lost.pattern)} became ${first.keyword} ${JSON.stringify(first.pattern)}`,
        first.pattern,
      )
    else if (direction === 'reads' && first !== undefined)
      this.report(
        'add',
        [...path, first.keyword],
        `the service now reads only ${first.keyword} ${JSON.stringify(first.pattern)}`,
        first.pattern,
      )
    else if (direction === 'writes' && lost !== undefined)
      this.report(
        'remove',
        [...path, lost.keyword],
        `the service may now send what ${lost.keyword} ${JSON.stringify(lost.pattern)} ruled out`,
      )
    for (const [keywords, tighter] of BOUNDS) {
      for (const keyword of keywords) this.judged.add([...path, keyword].join('/'))
      const [was, is] = [boundOf(before, keywords, tighter), boundOf(after, keywords, tighter)]
      // Less let through: a bound where there was none, or a tighter one; more: none where there was one, or a looser.
      const tightened = is !== undefined && (was === undefined || tighter(was.limit, is.limit))
      const loosened = was !== undefined && (is === undefined || tighter(is.limit, was.limit))
      // Reported at the keyword that made the difference: one that bounds now (tightened) or bounded before
      // (loosened) and changed. None changed when only the type did (integer → number), which the type rule judges.
      const [breaks, by] = direction === 'reads' ? [tightened, is] : [loosened, was]
      const keyword = by?.keywords.find((each) => !isDeepStrictEqual(before[each], after[each]))
      if (!breaks || keyword === undefined) continue
      const [from, to] = [before[keyword], after[keyword]]
      this.report(
        from === undefined ? 'add' : to === undefined ? 'remove' : 'replace',
        [...path, keyword],
        `${stated(before, keywords)} became ${stated(after, keywords)} in what the service ${direction}`,
        to,
      )
    }
  }

  /**
   * What the service takes for a property a request leaves out: stated as `default`, or as `x-default` where a
   * `default` would make generators require the property in their types (NewPet.status, NewOrder.quantity).
   */
  private defaults(before: Json, after: Json, path: string[], direction: Direction): void {
    if (direction !== 'reads') return
    for (const keyword of DEFAULT_KEYWORDS) {
      const [was, is] = [before[keyword], after[keyword]]
      if (was === undefined || isDeepStrictEqual(was, is)) continue
      // Moved from one keyword to the other, the value is the same default.
      const other = DEFAULT_KEYWORDS.find((each) => each !== keyword) ?? keyword
      if (is === undefined && isDeepStrictEqual(was, after[other])) continue
      this.report(
        is === undefined ? 'remove' : 'replace',
        [...path, keyword],
        `a request that leaves this out was taken as ${JSON.stringify(was)}, and is now taken as ` +
          `${is === undefined ? 'something the document no longer states' : JSON.stringify(is)}`,
        is,
      )
    }
  }

  /** The keywords of UNCOMPARED: in what the service reads one may not appear, in what it writes not disappear. */
  private uncompared(before: Json, after: Json, path: string[], direction: Direction): void {
    for (const keyword of UNCOMPARED) {
      const [was, is] = [before[keyword], after[keyword]]
      // Gone from what the service reads, it takes more; new in what it writes, it sends less.
      if (isDeepStrictEqual(was, is) || (direction === 'reads' ? is : was) === undefined) continue
      this.report(
        was === undefined ? 'add' : is === undefined ? 'remove' : 'replace',
        [...path, keyword],
        `${keyword} ${was === undefined ? 'appeared' : is === undefined ? 'disappeared' : 'changed'} in what the ` +
          `service ${direction}: which values it allows cannot be compared`,
        is,
      )
    }
  }

  private properties(before: Json, after: Json, path: string[], direction: Direction): void {
    const [wasProperties, isProperties] = [objectAt(before, 'properties'), objectAt(after, 'properties')]
    const [wasRequired, isRequired] = [listAt(before, 'required'), listAt(after, 'required')]
    for (const [name, schema] of Object.entries(wasProperties)) {
      const here = [...path, 'properties', name]
      if (!(name in isProperties)) {
        const refused = direction === 'reads' && after.additionalProperties === false
        if (direction === 'writes' || refused)
          this.report('remove', here, `property ${name} was removed from what the service ${direction}`)
        continue
      }
      this.schema(schema, isProperties[name], here, direction)
    }
    // Requests are closed by additionalProperties: false. Where it was absent or true, a property not named was
    // taken; refusing it now refuses requests that were valid. (One that was a schema is compared as a schema.)
    const wasOpen = before.additionalProperties === undefined || before.additionalProperties === true
    if (direction === 'reads' && wasOpen && after.additionalProperties === false)
      this.report(
        before.additionalProperties === undefined ? 'add' : 'replace',
        [...path, 'additionalProperties'],
        'the service now refuses the properties it does not name, which it took',
        false,
      )
    if (direction === 'writes') {
      for (const name of wasRequired)
        if (!isRequired.includes(name) && String(name) in isProperties)
          this.report('remove', [...path, 'required'], `${String(name)} is no longer always sent`)
    } else {
      for (const name of isRequired)
        if (!wasRequired.includes(name))
          this.report('add', [...path, 'required'], `${String(name)} is now required in what the service reads`)
    }
  }

  /** Media types by name: the before's must all still be there, each schema compared. */
  content(before: Json, after: Json, path: string[], direction: Direction): void {
    const isContent = objectAt(after, 'content')
    for (const [mediaType, media] of Object.entries(objectAt(before, 'content'))) {
      const here = [...path, 'content', mediaType]
      if (!(mediaType in isContent)) {
        this.report('remove', here, `${mediaType} is no longer ${direction === 'reads' ? 'accepted' : 'sent'}`)
        continue
      }
      const [was, is] = [isObject(media) ? media.schema : undefined, objectAt(isContent, mediaType).schema]
      this.schema(was, is, [...here, 'schema'], direction)
    }
  }

  /**
   * Parameters by location and name. Those the service reads may not become required; those it writes (the headers
   * of a webhook delivery) may not disappear or stop being always sent.
   */
  parameters(before: Json, after: Json, path: string[], direction: Direction): void {
    const key = (parameter: unknown): string =>
      isObject(parameter) ? `${String(parameter.in)}:${String(parameter.name).toLowerCase()}` : ''
    const wasByKey = new Map(
      listAt(before, 'parameters').map((parameter, index) => [key(parameter), { parameter, index }]),
    )
    const isKeys = new Set(listAt(after, 'parameters').map(key))
    listAt(after, 'parameters').forEach((parameter, index) => {
      if (!isObject(parameter)) return
      const earlier = wasByKey.get(key(parameter))
      const was = earlier?.parameter
      // A parameter that was there is numbered as the reference has it, as the diff tool numbers it (so that one
      // decision names it in both), whatever was added before it since; a new one as the current document has it.
      const here = [...path, 'parameters', String(earlier?.index ?? index)]
      if (direction === 'reads' && parameter.required === true && !(isObject(was) && was.required === true))
        this.report('add', [...here, 'required'], `parameter ${key(parameter)} is now required`)
      if (direction === 'writes' && isObject(was) && was.required === true && parameter.required !== true)
        this.report('remove', [...here, 'required'], `parameter ${key(parameter)} is no longer always sent`)
      if (isObject(was)) this.schema(was.schema, parameter.schema, [...here, 'schema'], direction)
    })
    if (direction === 'writes')
      listAt(before, 'parameters').forEach((parameter, index) => {
        if (isObject(parameter) && !isKeys.has(key(parameter)))
          this.report('remove', [...path, 'parameters', String(index)], `parameter ${key(parameter)} is no longer sent`)
      })
  }

  /** One operation; `served`: a request the service answers (false: a webhook or callback the service sends). */
  operation(before: Json, after: Json, path: string[], served: boolean): void {
    const request: Direction = served ? 'reads' : 'writes'
    const response: Direction = served ? 'writes' : 'reads'
    // Generators name an operation's function and types by its operationId (openapi-typescript's
    // operations["listPets"], a client method listPets()): renaming it removes what client code calls.
    const [wasId, isId] = [before.operationId, after.operationId]
    if (typeof wasId === 'string' && wasId !== isId)
      this.report(
        isId === undefined ? 'remove' : 'replace',
        [...path, 'operationId'],
        `operation ${wasId} is ${isId === undefined ? 'no longer named' : `now named ${JSON.stringify(isId)}`}: ` +
          'generated clients name its function and types by it',
        isId,
      )
    // Scopes are flat (none implies another): a key that had the scope named before is refused (403) by any other.
    const [wasScope, isScope] = [before['x-required-scope'], after['x-required-scope']]
    if (served && isScope !== undefined && !isDeepStrictEqual(wasScope, isScope))
      this.report(
        wasScope === undefined ? 'add' : 'replace',
        [...path, 'x-required-scope'],
        `the operation now needs the scope ${JSON.stringify(isScope)}` +
          (wasScope === undefined ? '' : `, not ${JSON.stringify(wasScope)}: keys with only that one get 403`),
        isScope,
      )
    this.parameters(before, after, path, request)
    const [wasBody, isBody] = [objectAt(before, 'requestBody'), objectAt(after, 'requestBody')]
    if (request === 'reads' && isBody.required === true && wasBody.required !== true)
      this.report('add', [...path, 'requestBody', 'required'], 'a request body is now required')
    this.content(wasBody, isBody, [...path, 'requestBody'], request)
    const isResponses = objectAt(after, 'responses')
    for (const [status, was] of Object.entries(objectAt(before, 'responses'))) {
      const here = [...path, 'responses', status]
      if (!(status in isResponses)) {
        if (status.startsWith('2')) this.report('remove', here, `response ${status} was removed`)
        continue
      }
      const is = objectAt(isResponses, status)
      if (isObject(was)) this.content(was, is, here, response)
      const isHeaders = objectAt(is, 'headers')
      for (const [header, definition] of Object.entries(isObject(was) ? objectAt(was, 'headers') : {})) {
        const [wasSchema, isSchema] = [
          isObject(definition) ? definition.schema : undefined,
          objectAt(isHeaders, header).schema,
        ]
        this.schema(wasSchema, isSchema, [...here, 'headers', header, 'schema'], response)
      }
    }
    const isCallbacks = objectAt(after, 'callbacks')
    for (const [name, callback] of Object.entries(objectAt(before, 'callbacks')))
      this.pathItems(
        isObject(callback) ? callback : {},
        objectAt(isCallbacks, name),
        [...path, 'callbacks', name],
        false,
      )
  }

  pathItems(before: Json, after: Json, path: string[], served: boolean): void {
    for (const [route, item] of Object.entries(before)) {
      if (!isObject(item)) continue
      const isItem = objectAt(after, route)
      for (const method of METHODS) {
        if (!isObject(item[method])) continue
        const here = [...path, route, method]
        if (!isObject(isItem[method]))
          this.report('remove', here, `operation ${method.toUpperCase()} ${route} was removed`)
        else this.operation(item[method], isItem[method], here, served)
      }
    }
  }

  /** Named schemas and their properties, by name: generated clients expose them as types. */
  components(before: Json, after: Json): void {
    const isSchemas = objectAt(objectAt(after, 'components'), 'schemas')
    for (const [name, schema] of Object.entries(objectAt(objectAt(before, 'components'), 'schemas'))) {
      const here = ['components', 'schemas', name]
      if (!(name in isSchemas)) this.report('remove', here, `component schema ${name} was removed`)
      else this.componentProperties(schema, isSchemas[name], here)
    }
  }

  private componentProperties(before: unknown, after: unknown, path: string[]): void {
    if (!isObject(before) || !isObject(after)) return
    const isProperties = objectAt(after, 'properties')
    for (const [name, schema] of Object.entries(objectAt(before, 'properties'))) {
      const here = [...path, 'properties', name]
      if (!(name in isProperties)) this.report('remove', here, `property ${name} was removed from ${path.join('/')}`)
      else this.componentProperties(schema, isProperties[name], here)
    }
    if (isObject(before.items)) this.componentProperties(before.items, after.items, [...path, 'items'])
  }
}

/**
 * The breaking changes our rules find from `before` to `after`. `raw*` are the documents as written (for the
 * component list); `before` and `after` have every `$ref` resolved. `judged`: the path of every bound keyword and
 * `type` the rules compared, changed or not, where they judge it in place of the diff tool. The tool compares minimum
 * and exclusiveMinimum one keyword at a time (minimum 1 → exclusiveMinimum 0 on an integer is a new bound to it), and
 * takes any change of `type` for a break, a request's integer → number or → [integer, string] included.
 */
export function ruleChanges(
  rawBefore: Json,
  rawAfter: Json,
  before: Json,
  after: Json,
): { changes: RuleChange[]; judged: ReadonlySet<string> } {
  const walk = new Walk()
  walk.pathItems(objectAt(before, 'paths'), objectAt(after, 'paths'), ['paths'], true)
  walk.pathItems(objectAt(before, 'webhooks'), objectAt(after, 'webhooks'), ['webhooks'], false)
  walk.components(rawBefore, rawAfter)
  return { changes: walk.changes, judged: walk.judged }
}
