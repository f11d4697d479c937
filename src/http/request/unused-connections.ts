// Connections that a client opened and never sent a byte on: a browser's or a load balancer's pre-connection, a
// request aborted before it left. Node's server.close() ends idle keep-alive connections, but not these, and
// would wait for their idle time-out (a minute): longer than the shutdown's grace, after which the process exits
// without closing the store. They are ended as the server closes; nothing was sent on them, so nothing is lost.
import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'

export function closeUnusedConnectionsOnClose(app: FastifyInstance): void {
  const open = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  })
  // Synchronous, and registered after the other preClose hooks: Fastify stops accepting connections right after
  // it, in the same turn, so no new connection arrives in between.
  app.addHook('preClose', (done) => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy()
    done()
  })
}
