// One real request per scenario before any load: right status, right body. Load figures for wrong answers
// (a 401 from a mistyped key, a 400 from a stale cursor) would look splendid and mean nothing.
import type { Scenario, ScenarioContext } from './scenarios.js'

export async function verifyScenario(
  scenario: Scenario,
  baseUrl: string,
  apiKey: string,
  context: ScenarioContext,
): Promise<void> {
  const [request] = scenario.requests(context)
  if (!request) throw new Error(`scenario ${scenario.id} has no request`)
  const response = await fetch(`${baseUrl}${request.path ?? '/'}`, {
    method: request.method ?? 'GET',
    headers: { authorization: `Bearer ${apiKey}`, ...(request.headers as Record<string, string> | undefined) },
    ...(request.body === undefined ? {} : { body: request.body.toString() }),
  })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  const problem =
    response.status !== scenario.expect.status
      ? `status ${response.status}, expected ${scenario.expect.status}: ${text.slice(0, 300)}`
      : scenario.expect.body(body, context)
  if (problem)
    throw new Error(
      `scenario "${scenario.label}" answers wrongly (${request.method ?? 'GET'} ${request.path ?? '/'}): ${problem}`,
    )
}
