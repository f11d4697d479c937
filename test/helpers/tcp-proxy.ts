// A TCP proxy between the service and its database, so a test can make the database unreachable (and
// reachable again) without stopping the database that other test files are using.
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  /** Drops every connection and refuses new ones: a database that was stopped. */
  cut(): Promise<void>
  /** Keeps connections open but forwards nothing, and accepts new ones that never answer: a network black hole. */
  stall(): void
  /** Forwards again, on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  let stalled = false

  function track(socket: Socket): Socket {
    sockets.add(socket)
    socket.on('error', () => socket.destroy()).on('close', () => sockets.delete(socket))
    return socket
  }

  function listen(): Promise<void> {
    server = createServer((client) => {
      track(client)
      if (stalled) return // accepted, and never answered
      const upstream = track(connect(target.port, target.host))
      client.on('data', (chunk) => stalled || upstream.write(chunk))
      upstream.on('data', (chunk) => stalled || client.write(chunk))
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    return new Promise((resolve) =>
      server?.listen(port, '127.0.0.1', () => {
        const address = server?.address()
        if (address && typeof address === 'object') port = address.port
        resolve()
      }),
    )
  }

  async function cut(): Promise<void> {
    const closing = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    for (const socket of sockets) socket.destroy()
    await closing
    server = undefined
  }

  await listen()
  return {
    port,
    cut,
    stall: () => {
      stalled = true
    },
    async restore() {
      if (stalled) await cut()
      stalled = false
      await listen()
    },
    close: cut,
  }
}
