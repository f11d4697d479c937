// What a conditional write requires of the version the resource is at when the write happens (HTTP If-Match,
// RFC 9110 section 13.1.1, in the domain's words): that it exists at any version, or is at one of the given ones.
export type VersionCondition = { anyVersion: true } | { versions: readonly number[] }

export function conditionHolds(condition: VersionCondition, version: number): boolean {
  return 'anyVersion' in condition || condition.versions.includes(version)
}
