/**
 * Every limit of the wire contract in one place, units last in names.
 * Servers enforce them; clients may use them to validate before sending.
 */
export const limits = {
  /** Request bodies over this are BAD_REQUEST. */
  bodyBytesMax: 1024 * 1024,
  /**
   * One MCP response (a tool's result, the tool list) is at most this many bytes: a request is one
   * message (no JSON-RPC batches), so this bounds what one rate-limit token can make the server
   * produce. A larger tool result is answered with an error asking for less (a smaller page).
   */
  mcpResponseBytesMax: 4 * 1024 * 1024,
  /** `events` page size: `limit` from 1 to this, default below. */
  eventsPageRowsMax: 500,
  eventsPageRowsDefault: 100,
  /**
   * `directory`: each of its lists (people, agents, keys) holds at most this many rows, the newest;
   * `truncated` says when one was cut. Owners add rows, and revoked keys stay listed.
   */
  directoryRowsMax: 1000,
  /** Reads other than `events`. */
  pageRowsMax: 200,
  pageRowsDefault: 50,
  /** `approval.wait` long-poll ceiling. */
  approvalWaitMsMax: 30_000,
  /** Default approval expiry (policy may change it). */
  approvalExpiryMsDefault: 24 * 60 * 60 * 1000,
  /** Idempotency records are kept at least this long. */
  idempotencyRetentionMs: 24 * 60 * 60 * 1000,
  /** Bounds for free text and identifiers. */
  idempotencyKeyCharsMax: 255,
  nameCharsMax: 200,
  textCharsMax: 2000,
  idCharsMax: 64,
  /** Money: any amount must stay a safe integer when summed; this cap keeps sums exact. */
  centsMax: 1_000_000_000_000,
  dueDaysMax: 3650,
  /** contacts.list `q`: a fragment of a name, bounding the pattern every name key is matched against. */
  contactQueryCharsMax: 100,
} as const;
