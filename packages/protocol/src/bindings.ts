import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './hash.js';

/**
 * What binds the records an event causes, outside the event itself, into the chain: a journal's
 * lines and an outbox file's bytes. A journal names its event by ledger id and a file lives in
 * an outbox row, and neither id says anything about the content; so the event that posts a
 * journal carries, in its payload, a digest of the journal's lines (`journals`), and the event
 * that queues or delivers a payment or lodgement file carries the file's SHA-256 (`files`). The
 * payload is hashed into the chain, so rewriting a journal's lines or swapping a file now breaks
 * either the binding or the chain. Only node:crypto, through hash.js: the audit pack's verifier
 * carries this file.
 */

/** One line of a journal as it is stored (journal_lines), in the form the digest covers. */
export interface JournalLineForm {
  readonly accountCode: string;
  readonly debitCents: number;
  readonly creditCents: number;
  readonly taxCode: string | null;
  readonly taxBaseCents: number;
  readonly gstCents: number;
  readonly docId: string | null;
  readonly description: string;
  /** The line's tracking option ids (books.trackingSet) in category slots 1 and 2; absent or null when none. */
  readonly tracking1?: string | null | undefined;
  readonly tracking2?: string | null | undefined;
}

/**
 * The text that is hashed for a journal's lines: canonical JSON of the array of its lines in line
 * order (line 1 first), each line exactly these eight keys (canonical JSON writes them sorted:
 * accountCode, creditCents, debitCents, description, docId, gstCents, taxBaseCents, taxCode);
 * amounts are integer cents, taxCode and docId null when absent. A line with tracking adds
 * `tracking1` and/or `tracking2` (its option ids) only when set, so a line without tracking, and
 * every journal posted before tracking existed, hashes exactly as before. Nothing else of the
 * line (its number is its place in the array) and nothing of the journal's head.
 */
export function journalLinesCanonical(lines: readonly JournalLineForm[]): string {
  return canonicalJson(
    lines.map((l) => ({
      accountCode: l.accountCode,
      creditCents: l.creditCents,
      debitCents: l.debitCents,
      description: l.description,
      docId: l.docId,
      gstCents: l.gstCents,
      taxBaseCents: l.taxBaseCents,
      taxCode: l.taxCode,
      ...(l.tracking1 != null ? { tracking1: l.tracking1 } : {}),
      ...(l.tracking2 != null ? { tracking2: l.tracking2 } : {}),
    })),
  );
}

/** Lowercase hex SHA-256 of `journalLinesCanonical(lines)` (UTF-8). */
export function journalLinesSha256(lines: readonly JournalLineForm[]): string {
  return sha256Hex(journalLinesCanonical(lines));
}

/** An entry of a posting event's `journals`: the journal it posted, its date and its lines' digest. */
export interface JournalBinding {
  readonly id: string;
  readonly date: string;
  readonly linesSha256: string;
}

/**
 * An entry of an event's `files`: the outbox row that carries a payment or lodgement file, the
 * file's name and the lowercase hex SHA-256 of its exact bytes (an ABA file's ASCII, a lodgement
 * document's UTF-8).
 */
export interface FileBinding {
  readonly outboxId: string;
  readonly fileName: string;
  readonly sha256: string;
}
