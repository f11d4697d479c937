// What the tests of the breaking-change gate share: the committed document, the references clients hold (the 1.0.0
// baseline and the last release's snapshot), the recorded decisions, and the gate's verdict on an edited copy.
import { readFileSync } from 'node:fs'
import {
  acceptancesFor,
  BASELINE,
  CURRENT,
  breakingChanges,
  lastRelease,
  readAcceptances,
} from '../../scripts/openapi-breaking.js'

export type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json
export const current = read(CURRENT)
export const references = { baseline: read(BASELINE), release: read(lastRelease()) }
export const accepted = readAcceptances()

/** The changes the gate reports for a copy of the committed document edited by `edit`, against both references. */
export function judged(edit: (document: Json) => void): { baseline: string[]; release: string[] } {
  const document = structuredClone(current)
  edit(document)
  const list = (reference: Json, path: string) =>
    breakingChanges(reference, document, acceptancesFor(path, accepted)).map(
      (change) => `${change.action} ${change.path}`,
    )
  return { baseline: list(references.baseline, BASELINE), release: list(references.release, lastRelease()) }
}

export const ORDER_200 = 'paths//store/orders/{orderId}/get/responses/200/content/application/json/schema'
export const EVENT_DATA = 'paths//events/get/responses/200/content/application/json/schema/items/properties/data'
export const schemas = (document: Json): Json => document.components.schemas
/** A copy of the committed document edited by `edit`. */
export function edited(edit: (document: Json) => void): Json {
  const document = structuredClone(current)
  edit(document)
  return document
}
/** The changes the gate reports from `reference` to `document`, with the recorded decisions. */
export const changesBetween = (reference: Json, document: Json): string[] =>
  breakingChanges(reference, document, accepted).map((change) => `${change.action} ${change.path}`)
