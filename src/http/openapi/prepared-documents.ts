// The OpenAPI document as bytes, in JSON and YAML. Serialising it costs milliseconds (YAML about 30 ms), and
// it is public: built per request, a few anonymous clients could keep the CPU busy. So each format is
// serialised once, around a placeholder for `servers`, the one part that depends on the request (the
// instance's own origin, listed after the configured production and staging servers); an origin's bytes are
// then the two prepared halves around its servers, kept for the last few origins.
import { randomBytes } from 'node:crypto'

export interface OpenApiDocument {
  servers?: { url: string; description?: string; 'x-internal'?: boolean }[]
  [key: string]: unknown
}

type Server = NonNullable<OpenApiDocument['servers']>[number]

export type DocumentFormat = 'json' | 'yaml'

export interface DocumentSource {
  /** The document with its configured servers. */
  object(): OpenApiDocument
  /** The same document as YAML. */
  yaml(): string
}

const INSTANCE_DESCRIPTION =
  'This instance: the address this document was fetched from, for trying the API out. Clients should use the ' +
  'Production or Staging server.'
/** An instance without configured servers (a local one) points nowhere else: there is no other server to use. */
const ONLY_INSTANCE_DESCRIPTION =
  'This instance, a local or development one (no production or staging server is configured): the address this ' +
  'document was fetched from.'

/** Without PUBLIC_BASE_URL the origin comes from the Host header, which any client chooses: the cache is bounded. */
const MAX_CACHED = 16

interface Halves {
  before: Buffer
  after: Buffer
}

export class PreparedDocuments {
  readonly #source: DocumentSource
  readonly #pathPrefix: string
  readonly #cached = new Map<string, Buffer>()
  #prepared: { servers: Server[]; json: Halves; yaml: Halves } | undefined

  /** `pathPrefix` follows the instance's origin in its server URL (e.g. /v1). */
  constructor(source: DocumentSource, pathPrefix: string) {
    this.#source = source
    this.#pathPrefix = pathPrefix
  }

  /** The document for clients that reach this instance at `origin`, always the same bytes for the same origin. */
  bytes(format: DocumentFormat, origin: string): Buffer {
    const key = `${format} ${origin}`
    const cached = this.#cached.get(key)
    if (cached) {
      // Most recently used last, so that the first entry is the one to evict.
      this.#cached.delete(key)
      this.#cached.set(key, cached)
      return cached
    }
    const prepared = this.#prepare()
    // Last, so that a generator (which takes the first server) is not bound to whichever instance served the
    // document; left out when it is one of the configured servers already.
    const description = prepared.servers.length > 0 ? INSTANCE_DESCRIPTION : ONLY_INSTANCE_DESCRIPTION
    const self = { url: `${origin}${this.#pathPrefix}`, description, 'x-internal': true }
    const servers = prepared.servers.some((server) => server.url === self.url)
      ? prepared.servers
      : [...prepared.servers, self]
    const halves = prepared[format]
    const bytes = Buffer.concat([
      halves.before,
      Buffer.from(format === 'json' ? JSON.stringify(servers) : yamlServers(servers)),
      halves.after,
    ])
    if (this.#cached.size >= MAX_CACHED) this.#cached.delete(this.#cached.keys().next().value ?? '')
    this.#cached.set(key, bytes)
    return bytes
  }

  #prepare(): { servers: Server[]; json: Halves; yaml: Halves } {
    if (this.#prepared) return this.#prepared
    const document = this.#source.object()
    const placeholder = `servers-placeholder-${randomBytes(12).toString('hex')}`
    const json = splitAround(JSON.stringify({ ...document, servers: placeholder }), JSON.stringify(placeholder))
    const yaml = this.#source.yaml()
    // The top-level `servers:` key and its indented block; top-level keys are the only lines at column 0.
    const block = /^servers:.*\n(?:[ \t-].*\n)*/m.exec(yaml)
    if (!block) throw new Error('the YAML document has no top-level servers')
    this.#prepared = {
      servers: document.servers ?? [],
      json,
      yaml: {
        before: Buffer.from(yaml.slice(0, block.index)),
        after: Buffer.from(yaml.slice(block.index + block[0].length)),
      },
    }
    return this.#prepared
  }
}

function splitAround(text: string, placeholder: string): Halves {
  const at = text.indexOf(placeholder)
  if (at < 0 || text.indexOf(placeholder, at + 1) >= 0) throw new Error('the placeholder must occur exactly once')
  return { before: Buffer.from(text.slice(0, at)), after: Buffer.from(text.slice(at + placeholder.length)) }
}

/** JSON strings are valid YAML double-quoted scalars, so the block needs no YAML library. */
function yamlServers(servers: Server[]): string {
  const items = servers.map(
    (server) =>
      `  - url: ${JSON.stringify(server.url)}\n` +
      (server.description === undefined ? '' : `    description: ${JSON.stringify(server.description)}\n`) +
      (server['x-internal'] === undefined ? '' : `    x-internal: ${String(server['x-internal'])}\n`),
  )
  return `servers:\n${items.join('')}`
}
