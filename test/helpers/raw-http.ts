// Raw TCP access to the test server, for requests fetch cannot make: oversized or malformed heads, non-ASCII
// header values, requests sent in pieces, a second request on a connection of our choosing.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'

export interface RawResponse {
  status: number
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>
  body: string
}

export interface RawConnection {
  socket: Socket
  write(data: string | Buffer): Promise<void>
  /** The next complete response on the connection (Content-Length framed), or the rest when the server closes. */
  nextResponse(): Promise<RawResponse>
  /** Resolves when the server (or an error) has closed the connection. */
  closed: Promise<void>
}

function parseResponse(head: string, body: string): RawResponse {
  const [statusLine = '', ...lines] = head.split('\r\n')
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)
  assert.ok(match?.[1], `not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(match[1]), headers, body }
}

export async function openRawConnection(baseUrl: string): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl)
  const socket = connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  let buffer = Buffer.alloc(0)
  let ended = false
  let waiting: (() => void) | undefined
  const closed = new Promise<void>((resolve) => {
    socket.on('close', () => {
      ended = true
      waiting?.()
      resolve()
    })
  })
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk])
    waiting?.()
  })
  // A reset after the response arrived is the server closing a connection it refused; what was read counts.
  socket.on('error', () => undefined)

  function takeResponse(): RawResponse | undefined {
    const headEnd = buffer.indexOf('\r\n\r\n')
    if (headEnd === -1) return undefined
    const head = buffer.subarray(0, headEnd).toString('latin1')
    // 204 and 304 never have a body (RFC 9112, section 6.3), whatever their headers say; waiting for the close
    // would wait out the server's keep-alive timeout.
    const bodiless = /^HTTP\/1\.[01] (204|304) /.test(head)
    const length = bodiless ? '0' : /\r\ncontent-length: *(\d+)/i.exec(head)?.[1]
    const bodyStart = headEnd + 4
    if (length === undefined) {
      if (!ended) return undefined
      const response = parseResponse(head, buffer.subarray(bodyStart).toString('utf8'))
      buffer = Buffer.alloc(0)
      return response
    }
    if (buffer.length < bodyStart + Number(length)) return undefined
    const response = parseResponse(head, buffer.subarray(bodyStart, bodyStart + Number(length)).toString('utf8'))
    buffer = buffer.subarray(bodyStart + Number(length))
    return response
  }

  return {
    socket,
    closed,
    write: (data) =>
      new Promise<void>((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve()))),
    async nextResponse() {
      for (;;) {
        const response = takeResponse()
        if (response) return response
        if (ended)
          throw new Error(
            `connection closed without a complete response; received ${JSON.stringify(buffer.toString('latin1'))}`,
          )
        await new Promise<void>((resolve) => {
          waiting = resolve
        })
        waiting = undefined
      }
    },
  }
}

/** Sends `data` on a new connection and returns the server's answer; the server is expected to close afterwards. */
export async function rawExchange(baseUrl: string, data: string | Buffer): Promise<RawResponse> {
  const connection = await openRawConnection(baseUrl)
  await connection.write(data)
  const response = await connection.nextResponse()
  await connection.closed
  return response
}
