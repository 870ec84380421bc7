// Times as the operator writes them into its own status fields: java.time.Instant in ISO_INSTANT form
// (DateTimeUtils.kubernetes), with fractional seconds whenever there are some, unlike the API server's whole seconds.

/** `2026-12-07T10:42:05.317Z`, or `2026-12-07T10:42:05Z` on a whole second. */
export function isoInstant(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}
