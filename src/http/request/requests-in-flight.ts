// How many HTTP requests this instance is handling right now: from their arrival until their response is sent or
// their connection closes. Background work reads it to give way while clients are waiting (the webhook deliverer).
import type { Server } from 'node:http'

export interface RequestsInFlight {
  count(): number
}

export function countRequestsInFlight(server: Server): RequestsInFlight {
  let inFlight = 0
  server.on('request', (_request, response) => {
    inFlight++
    // 'close' comes once per response, whether it was sent whole or its connection was cut.
    response.once('close', () => inFlight--)
  })
  return { count: () => inFlight }
}
