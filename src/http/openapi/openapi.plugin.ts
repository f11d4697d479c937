// The public documentation routes: the index at /, the OpenAPI document (JSON and YAML) and the reference at
// /docs. The document's generator must be registered before the routes it documents. `webhooks`: the document's
// section of that name, which the feature that sends them gives through the composition.
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify'
import type { Config } from '../../config.js'
import { registerDocs, registerOpenApi } from './docs.js'
import type { DocumentWebhooks } from './openapi-info.js'
import { registerRootIndex } from './root-index.js'

export async function registerDocumentation(
  app: FastifyInstance,
  config: Config,
  limitPublicRoute: onRequestAsyncHookHandler,
  webhooks: DocumentWebhooks,
): Promise<void> {
  registerRootIndex(app, limitPublicRoute)
  const servers = { productionBaseUrl: config.productionBaseUrl, stagingBaseUrl: config.stagingBaseUrl }
  await registerOpenApi(app, servers, webhooks)
  await registerDocs(app, { publicBaseUrl: config.publicBaseUrl, servers, limitPublicRoute })
}
