// The helper that finds the port a spawned server listens on, from /proc: it names the listening socket of the
// process, not a connection of it, and nothing before the process listens.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, connect } from 'node:net'
import { describe, it } from 'node:test'
import { listeningPort } from '../helpers/listening-port.js'

describe('listeningPort', () => {
  it('is the port of the listening socket, and none once it is closed', async () => {
    const server = createServer((socket) => socket.end())
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    // A connection of this process to it: its local port is not a listening one.
    const client = connect(port, '127.0.0.1')
    await once(client, 'connect')
    assert.equal(await listeningPort(process.pid), port)
    client.destroy()
    await new Promise((resolve) => server.close(resolve))
    assert.equal(await listeningPort(process.pid), undefined)
  })

  it('is undefined for a process that does not exist', async () => {
    assert.equal(await listeningPort(2 ** 22 + 1), undefined)
  })
})
