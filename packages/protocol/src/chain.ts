import { canonicalJson, type JsonValue } from './canonical-json.js';
import { isCanonicalJsonText } from './canonical-text.js';
import { sha256Hex } from './hash.js';

/** A ledger event as it travels on the wire (docs/protocol.md, section 2). */
export interface EventRow {
  readonly seq: number;
  readonly family: string;
  readonly kind: string;
  readonly entity_id: string;
  readonly actor: string;
  readonly at: string;
  readonly payload: JsonValue | null;
  readonly prev_hash: string;
  readonly row_hash: string;
}

export type UnhashedEvent = Omit<EventRow, 'row_hash' | 'prev_hash'>;

/** The exact text that is hashed for a row (docs/protocol.md, section 3): canonical JSON of eight fields. */
export function rowHashInput(prev: string, row: UnhashedEvent): string {
  return rowHashInputWithPayload(prev, row, canonicalJson(row.payload ?? null));
}

/**
 * A code unit that keeps a string from being written as itself between quotes: what
 * JSON.stringify escapes (`"`, `\\`, controls) and any surrogate (canonicalJson refuses lone
 * ones; pairs are left to it too). Ids, timestamps, kinds and hex hashes have none.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NOT_PLAIN = /["\\\u0000-\u001f\ud800-\udfff]/;
// (A native regex test per field costs less than a loop over its characters; one pattern over
// the whole built head, tried too, was no faster.)

function plainJsonString(value: unknown): value is string {
  return typeof value === 'string' && !NOT_PLAIN.test(value);
}

/**
 * The last value found plain per head field (actor, at, entity, family, kind). Consecutive rows
 * of a ledger mostly share family, kind and actor, and comparing with the last plain value is
 * cheaper than testing again; equal strings are equally plain, so the answer is the same.
 */
const lastPlain: string[] = ['', '', '', '', ''];

function plainField(slot: number, value: unknown): value is string {
  if (value === lastPlain[slot]) return true;
  if (!plainJsonString(value)) return false;
  lastPlain[slot] = value;
  return true;
}

/**
 * The same text when the payload's canonical JSON is already at hand (the server stores exactly
 * that text), so it is serialised once. The eight keys are written in their sorted order:
 * actor, at, entity_id, family, kind, payload, prev, seq. Defaults: an absent actor or
 * entity is "", an absent payload is null.
 *
 * Speed: the verifier and the write path build this text for every row, and building
 * it through canonicalJson of two small objects cost more than hashing it. When every field is
 * a plain string (and seq a safe integer) the text is written directly; anything else — a field
 * that needs escaping, a surrogate, a missing or mistyped field — takes the canonicalJson
 * construction, so the bytes (and the errors) are those canonicalJson gives in every case
 * (test: the builder against canonicalJson of the eight-key object).
 */
export function rowHashInputWithPayload(prev: string, row: Omit<UnhashedEvent, 'payload'>, payloadCanonical: string): string {
  return buildRowHashInput(prev, false, row, payloadCanonical);
}

/**
 * `prevIsDigest`: the caller knows `prev` is a SHA-256 hex digest (the verifier has checked that
 * it equals the row_hash it recomputed for the row before), so it need not be scanned.
 */
function buildRowHashInput(prev: string, prevIsDigest: boolean, row: Omit<UnhashedEvent, 'payload'>, payloadCanonical: string): string {
  const actor = row.actor ?? '';
  const entity = row.entity_id ?? '';
  const { at, family, kind, seq } = row;
  if (
    plainField(0, actor) &&
    plainField(1, at) &&
    plainField(2, entity) &&
    plainField(3, family) &&
    plainField(4, kind) &&
    typeof payloadCanonical === 'string' &&
    Number.isSafeInteger(seq) &&
    (prevIsDigest || plainJsonString(prev))
  ) {
    return (
      '{"actor":"' +
      actor +
      '","at":"' +
      at +
      '","entity_id":"' +
      entity +
      '","family":"' +
      family +
      '","kind":"' +
      kind +
      '","payload":' +
      payloadCanonical +
      ',"prev":"' +
      prev +
      '","seq":' +
      String(seq) +
      '}'
    );
  }
  return rowHashInputByCanonicalJson(prev, row, payloadCanonical);
}

/** The general construction: canonicalJson of the head and tail objects, the payload spliced in. */
function rowHashInputByCanonicalJson(prev: string, row: Omit<UnhashedEvent, 'payload'>, payloadCanonical: string): string {
  const head = canonicalJson({
    actor: row.actor ?? '',
    at: row.at,
    entity_id: row.entity_id ?? '',
    family: row.family,
    kind: row.kind,
  });
  const tail = canonicalJson({ prev, seq: row.seq });
  return `${head.slice(0, -1)},"payload":${payloadCanonical},${tail.slice(1)}`;
}

/** Lowercase hex SHA-256 of the row's canonical serialisation. */
export function rowHash(prev: string, row: UnhashedEvent): string {
  return sha256Hex(rowHashInput(prev, row));
}

/**
 * The signature payloadHash: lowercase hex SHA-256 of the canonical JSON of `{actionClass, subjectId,
 * params}`, where params are the act's params without `approvalId` and `signatureToken` (a proof
 * given here is stripped, so a client may pass the params of its retry as they are). The server
 * binds holds, approvals and signature tokens with it; clients use the same function (vector P1).
 * A param that is a number with decimals (an employee's hours a week, 22.8) is hashed as the text
 * `decimal:22.8`, its shortest form, as the server hashes a request for idempotency: canonical JSON
 * takes integers only, and integers hash as before, so every existing binding is unchanged.
 */
export function payloadHash(actionClass: string, subjectId: string, params: unknown): string {
  let actParams = params;
  if (typeof params === 'object' && params !== null && !Array.isArray(params)) {
    const { approvalId: _a, signatureToken: _s, ...rest } = params as Record<string, unknown>;
    actParams = rest;
  }
  return sha256Hex(canonicalJson({ actionClass, subjectId, params: decimalsAsText(actParams) as JsonValue }));
}

/**
 * A value as canonical JSON takes it when the protocol allows a few decimal places (hours 7.6, a
 * multiplier 1.5): a number that is not a safe integer becomes the text `decimal:7.6`, its shortest
 * form (no exponent in the ranges the protocol allows). Canonical JSON refuses such numbers so that
 * money never travels as a float; hashing a request or an act's params is not money. Integers are
 * left as they are, so every hash of params without decimals is unchanged.
 */
export function decimalsAsText(v: unknown): unknown {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : `decimal:${String(v)}`;
  if (Array.isArray(v)) return v.map(decimalsAsText);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decimalsAsText(x)]));
  return v;
}

/** `ledgerId`: the first 8 hex characters of the event's row hash. */
export function ledgerId(rowHashHex: string): string {
  return rowHashHex.slice(0, 8);
}

/**
 * A row as stored: the payload is the exact text that was hashed. Verifying this form checks
 * the stored bytes themselves, so a payload re-encoded in storage (`1234` → `1234.0`, added
 * whitespace, a duplicate key) or not JSON at all is a break, not a re-parse that happens to match.
 */
export interface StoredEventRow extends Omit<EventRow, 'payload'> {
  readonly payload: string;
}

/**
 * `prev_hash`: the row does not link to its predecessor (or seq is not gapless); `row_hash`: the
 * row's bytes do not hash to its row_hash; `payload`: the bytes hash correctly but are not the
 * canonical JSON the server writes (someone recomputed the hashes over foreign bytes).
 */
export type ChainBreakReason = 'prev_hash' | 'row_hash' | 'payload';

export type ChainVerdict =
  | { readonly ok: true; readonly rows: number; readonly head: { seq: number; rowHash: string } }
  | {
      readonly ok: false;
      readonly rows: number;
      readonly seq: number;
      readonly reason: ChainBreakReason;
      readonly expected: string;
      readonly actual: string;
    };

/**
 * Incremental verifier so that an auditor can stream pages of `events` without holding the whole
 * ledger in memory. Feed rows in seq order; the first break is remembered and reported.
 */
export class ChainVerifier {
  private prev: string;
  private seq: number;
  private count = 0;
  /** `prev` is a row_hash equal to a digest this verifier computed (so plain hex). */
  private prevIsDigest = false;
  private broken: ChainVerdict | null = null;

  /** Start from a known head (seq 0 and '' for the beginning of a ledger). */
  constructor(from: { seq: number; rowHash: string } = { seq: 0, rowHash: '' }) {
    this.prev = from.rowHash;
    this.seq = from.seq;
  }

  push(row: EventRow): boolean {
    if (!this.links(row)) return false;
    return this.accept(row, rowHash(row.prev_hash, row));
  }

  /**
   * Verify a stored row over its exact payload bytes (the server's own verifier). A payload whose
   * bytes hash correctly but are not canonical JSON is a `payload` break at that seq.
   */
  pushStored(row: StoredEventRow): boolean {
    if (!this.links(row)) return false;
    // After links(), prev_hash is the row_hash accepted for the row before: a digest we
    // recomputed (hex) — except at the starting point, which came from the caller.
    const input = buildRowHashInput(row.prev_hash, this.prevIsDigest, row, row.payload);
    if (!this.accept(row, sha256Hex(input))) return false;
    if (!isCanonicalJsonText(row.payload)) {
      this.broken = this.breakAt(row.seq, 'payload', 'canonical JSON', row.payload.slice(0, 200));
      return false;
    }
    return true;
  }

  /** Linkage: prev_hash is the predecessor's row_hash and seq follows it. */
  private links(row: { seq: number; prev_hash: string }): boolean {
    if (this.broken) return false;
    this.count += 1;
    if (row.prev_hash !== this.prev) {
      this.broken = this.breakAt(row.seq, 'prev_hash', this.prev, row.prev_hash);
      return false;
    }
    // Seq is gapless. A row that does not follow its predecessor's seq does not link to it,
    // even when its prev_hash does (a rewritten ledger with renumbered rows).
    if (row.seq !== this.seq + 1) {
      this.broken = this.breakAt(row.seq, 'prev_hash', `seq ${this.seq + 1}`, `seq ${row.seq}`);
      return false;
    }
    return true;
  }

  private accept(row: { seq: number; row_hash: string }, recomputed: string): boolean {
    if (recomputed !== row.row_hash) {
      this.broken = this.breakAt(row.seq, 'row_hash', recomputed, row.row_hash);
      return false;
    }
    this.prev = row.row_hash;
    this.prevIsDigest = true;
    this.seq = row.seq;
    return true;
  }

  verdict(): ChainVerdict {
    if (this.broken) return this.broken;
    return { ok: true, rows: this.count, head: { seq: this.seq, rowHash: this.prev } };
  }

  private breakAt(seq: number, reason: ChainBreakReason, expected: string, actual: string) {
    return { ok: false as const, rows: this.count, seq, reason, expected, actual };
  }
}

/** Walk rows in order and report the first break (docs/protocol.md, section 4), or the head when intact. */
export function verifyChain(rows: Iterable<EventRow>, from?: { seq: number; rowHash: string }): ChainVerdict {
  const verifier = new ChainVerifier(from);
  for (const row of rows) {
    if (!verifier.push(row)) break;
  }
  return verifier.verdict();
}
