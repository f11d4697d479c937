// Swagger UI's plugin redirects /docs/static/index.html to the page by rewriting the URL's ending; with a query
// (`?x=1`) the ending is not the file name, so it redirected the request to itself, forever. This redirect goes
// to the page whatever the query, and keeps the query.
import type { FastifyReply, FastifyRequest } from 'fastify'

export const DOCS_INDEX_FILE = '/docs/static/index.html'

/** The handler of DOCS_INDEX_FILE: a redirect (302, as the plugin's) to the page, `/docs/`. */
export async function redirectToDocsPage(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const queryStart = request.url.indexOf('?')
  return reply.redirect(`/docs/${queryStart === -1 ? '' : request.url.slice(queryStart)}`)
}
