// Node's HTTP parser accepts about thirty methods (WebDAV's PROPFIND and LOCK, PURGE, SEARCH, ...); Fastify's
// router knows nine, and sends a request with any other to the not-found handler. There its target is looked up
// among the paths rejectOtherMethods refuses other methods on, with the same router library and settings: a path
// that exists answers 405 with its Allow (RFC 9110 section 15.5.6), as for TRACE; one that does not answers 404.
// (Adding the methods to Fastify's router would do the same at the cost of about 1.4 MB of heap: a routing tree
// per method, for requests that no client of the API sends.)
import FindMyWay from 'find-my-way'
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { MAX_PATH_PARAMETER_LENGTH } from '../limits.js'
import { ApiError } from './errors.js'
import { MESSAGES } from './error-messages.js'
import { methodAsAnswered } from './no-route.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The application's paths and the methods each allows, for methods Fastify's router does not know. */
    knownPaths: KnownPaths
  }
}

export interface KnownPath {
  allow: string
  /** Outside the API's guard (a public route): refused without a key, like the route's own other methods. */
  isPublic: boolean
  /** Run before the refusal, as for the path's own refusals (a public route's rate limit). */
  limit: onRequestAsyncHookHandler | undefined
}

class KnownPaths {
  readonly #router = FindMyWay({ maxParamLength: MAX_PATH_PARAMETER_LENGTH })

  add(path: string, known: KnownPath): void {
    this.#router.on('GET', path, () => {}, known)
  }

  /**
   * The path of a request whose method Fastify's router does not know, if the application has it; undefined for
   * a method the router knows, or a path that does not exist (under the API, an empty path parameter names nothing,
   * as the API's routes themselves decide: see no-route.ts; a public route's empty wildcard, `/docs/`, is the page).
   */
  match(app: FastifyInstance, request: FastifyRequest): KnownPath | undefined {
    return app.supportedMethods.includes(request.method) ? undefined : this.find(request.url)
  }

  /** The application's path `url` names, whatever the method; undefined for one that does not exist. */
  find(url: string): KnownPath | undefined {
    const found = this.#router.find('GET', url)
    if (!found) return undefined
    const known = found.store as KnownPath
    return !known.isPublic && Object.values(found.params).includes('') ? undefined : known
  }
}

/** The 405 for a method a known path does not allow. */
export function methodNotAllowed(request: FastifyRequest, allow: string): ApiError {
  return new ApiError('method_not_allowed', MESSAGES.methodNotAllowed(methodAsAnswered(request), allow), {
    headers: { allow },
  })
}

/** Before any route is added. */
export function registerKnownPaths(app: FastifyInstance): void {
  app.decorate('knownPaths', new KnownPaths())
}
