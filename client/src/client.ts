// createPetstoreClient: one object with a group of methods per resource, sharing a transport (retries,
// deprecation notices) and the API key.
import createClient from 'openapi-fetch'
import type { Context } from './context.js'
import { DeprecationNotices } from './deprecation.js'
import { eventsApi, type EventsApi } from './events.js'
import type { paths } from './generated/petstore-v1.js'
import { categoriesApi, type CategoriesApi } from './categories.js'
import { ordersApi, type OrdersApi } from './orders.js'
import { petsApi, type PetsApi } from './pets.js'
import { retryPolicy, type RetryOptions } from './retry.js'
import { Transport, type FetchFunction } from './transport.js'
import { webhooksApi, type WebhooksApi } from './webhooks.js'

export interface PetstoreClientOptions {
  /**
   * The API's base URL, `/v1` included, as the document's `servers` give it: e.g. `https://petstore.example.com/v1`.
   */
  baseUrl: string
  /** An API key (`pst_…`), sent as `Authorization: Bearer`. */
  apiKey: string
  /** The fetch to send requests with (default: the global fetch). */
  fetch?: FetchFunction
  /** How failed requests are retried (see RetryOptions for the defaults). */
  retry?: RetryOptions
}

export interface PetstoreClient {
  pets: PetsApi
  orders: OrdersApi
  /** [beta] Category records. */
  categories: CategoriesApi
  events: EventsApi
  webhooks: WebhooksApi
}

export function createPetstoreClient(options: PetstoreClientOptions): PetstoreClient {
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl))
    throw new TypeError(`baseUrl must be an http(s) URL, not ${JSON.stringify(withoutCredentials(options.baseUrl))}`)
  if (typeof options.apiKey !== 'string' || options.apiKey === '')
    throw new TypeError('apiKey must be a non-empty string')
  const retry = retryPolicy(options.retry)
  // Looked up at each call, not bound once, so that a fetch installed later (a test double, a polyfill) is used.
  const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const transport = new Transport({ fetch, retry, deprecations: new DeprecationNotices() })
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: transport.fetchFor({ operationId: 'unknown' }),
  })
  const context: Context = { api, transport, retry }
  return {
    pets: petsApi(context),
    orders: ordersApi(context),
    categories: categoriesApi(context),
    events: eventsApi(context),
    webhooks: webhooksApi(context),
  }
}

/** The URL as given, without a `user:password@` part: an error message must not carry a secret into a log. */
function withoutCredentials(url: unknown): unknown {
  return typeof url === 'string' ? url.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/\/)?[^/?#]*@/i, '$1') : url
}
