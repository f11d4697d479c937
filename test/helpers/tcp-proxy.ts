// A TCP proxy between the service and its database, so a test can make the database unreachable (and
// reachable again) without stopping the database other test files are using.
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** Drops every connection and refuses new ones, as a database that went away. */
  cut(): Promise<void>
  /** Accepts connections again on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0

  function listen(): Promise<void> {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host)
      sockets.add(client).add(upstream)
      client.pipe(upstream).pipe(client)
      const drop = () => {
        client.destroy()
        upstream.destroy()
        sockets.delete(client)
        sockets.delete(upstream)
      }
      client.on('error', drop).on('close', drop)
      upstream.on('error', drop).on('close', drop)
    })
    return new Promise((resolve) => server?.listen(port, '127.0.0.1', () => {
      const address = server?.address()
      if (address && typeof address === 'object') port = address.port
      resolve()
    }))
  }

  async function cut(): Promise<void> {
    const closing = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    await closing
    server = undefined
  }

  await listen()
  return { port, cut, restore: listen, close: cut }
}
