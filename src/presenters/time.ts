/** A timestamp on the wire: ISO 8601 in UTC. A row without it is a bug upstream, not a value to hide. */
export function iso(d: Date | string | null | undefined): string {
  if (d === null || d === undefined) throw new TypeError('a required timestamp is missing');
  return (d instanceof Date ? d : new Date(d)).toISOString();
}

/** A timestamp that may be absent on the wire (`lastLoginAt` of a user who never signed in): ISO 8601 or null. */
export function isoOrNull(d: Date | string | null | undefined): string | null {
  return d === null || d === undefined ? null : iso(d);
}
