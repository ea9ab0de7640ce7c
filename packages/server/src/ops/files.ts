import type { readSpecs } from '@finance-desk/protocol';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { LODGEMENT_CHANNEL, type LodgementFile } from '../adapters/lodgement.js';
import { PAYMENT_FILE_CHANNEL, paymentFileEncoding, type PaymentFile } from '../adapters/payments.js';
import { maskedPayEvent } from '../domain/payroll/stp.js';
import { notFound } from '../errors.js';
import type { Queryable } from '../storage/types.js';

/**
 * Payment and lodgement files, read from where they live: the outbox rows that
 * carried them (channel `payment_file`: ABA files of payment runs and signed pay runs, super
 * contribution CSVs of super payments; channel `lodgement`: BAS and STP documents), the same
 * source as the audit pack's documents. Each row holds the file's exact text, so its bytes and
 * SHA-256 are recomputed here, never stored twice: an ABA file is ASCII written byte for byte
 * (latin1, as the payments sink writes it), a contribution CSV and a lodgement document UTF-8 (as
 * their sinks write them and a lodgement's receipt hashes it).
 *
 * A file's `sha256` and `sizeBytes` are always of those exact stored bytes. What is served may
 * differ: an STP pay event carries every payee's TFN in full, and a TFN is never served to an
 * API key, so `books.file` (and so the MCP tool) serves it with every TFN masked as
 * books.employees shows it, saying so (`masked`, with `contentSha256` and `contentSizeBytes` of
 * the bytes served). The exact bytes go to the lodgement sink, into the operator's audit pack
 * (its verifier checks them byte for byte) and, in the console, to a person with payroll
 * decision rights (human/files-pages.ts) — docs/decisions.md "TFNs in files".
 */
export type FileKind = (typeof readSpecs.FILE_KINDS)[number];
type FileRow = z.infer<typeof readSpecs.booksFiles.result>['files'][number];

export interface OutboxRow {
  id: string;
  channel: string;
  body: string;
  created_at: string;
  delivered_at: string | null;
  last_error: string | null;
}

const CONTENT_TYPES: Readonly<Record<FileKind, string>> = {
  aba: 'text/plain; charset=us-ascii',
  bas: 'application/json; charset=utf-8',
  stp_pay_event: 'application/json; charset=utf-8',
  super_contribution: 'text/csv; charset=utf-8',
};

/** The SQL that picks one kind's rows (a lodgement's kind is the body's first `kind` key). */
const KIND_SQL: Readonly<Record<FileKind, { sql: string; args: string[] }>> = {
  // A payment file's kind is its name's extension (the body's fileName precedes its content).
  aba: { sql: 'channel = ? AND body LIKE ?', args: [PAYMENT_FILE_CHANNEL, '%"fileName":"%.aba","content":%'] },
  super_contribution: { sql: 'channel = ? AND body LIKE ?', args: [PAYMENT_FILE_CHANNEL, '%"fileName":"%.csv","content":%'] },
  bas: { sql: 'channel = ? AND body LIKE ?', args: [LODGEMENT_CHANNEL, '%"kind":"bas"%'] },
  stp_pay_event: { sql: 'channel = ? AND body LIKE ?', args: [LODGEMENT_CHANNEL, '%"kind":"stp_pay_event"%'] },
};

/** A row's file, or null when it is not one (another channel, or a body without a file's fields). */
export function fileOf(row: OutboxRow): { file: FileRow; bytes: Buffer } | null {
  let b: Partial<PaymentFile & LodgementFile>;
  try {
    b = JSON.parse(row.body) as Partial<PaymentFile & LodgementFile>;
  } catch {
    return null;
  }
  if (typeof b.content !== 'string' || typeof b.fileName !== 'string') return null;
  if (row.channel === PAYMENT_FILE_CHANNEL && typeof b.runId === 'string') {
    const encoding = paymentFileEncoding(b.fileName);
    return described(row, encoding === 'utf8' ? 'super_contribution' : 'aba', b.fileName, b.runId, Buffer.from(b.content, encoding));
  }
  if (row.channel === LODGEMENT_CHANNEL && typeof b.subjectId === 'string' && (b.kind === 'bas' || b.kind === 'stp_pay_event')) {
    return described(row, b.kind, b.fileName, b.subjectId, Buffer.from(b.content, 'utf8'));
  }
  return null;
}

function described(row: OutboxRow, kind: FileKind, filename: string, source: string, bytes: Buffer) {
  const file: FileRow = {
    id: row.id,
    kind,
    filename,
    contentType: CONTENT_TYPES[kind],
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    createdAt: row.created_at,
    source,
    // A row the sink refused for good carries its error; it was not delivered.
    deliveredAt: row.delivered_at !== null && row.last_error === null ? row.delivered_at : null,
  };
  return { file, bytes };
}

const COLUMNS = 'id, channel, body, created_at, delivered_at, last_error';
const FILE_CHANNELS = `channel IN ('${PAYMENT_FILE_CHANNEL}', '${LODGEMENT_CHANNEL}')`;

/** `books.files` (and the console's Files page): newest first, keyset-paged on (created_at, id). */
export async function listFiles(
  q: Queryable,
  orgId: string,
  f: { readonly kind?: FileKind | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Promise<{ files: FileRow[]; nextCursor: string | null }> {
  const where = ['org_id = ?', FILE_CHANNELS];
  const args: (string | number)[] = [orgId];
  if (f.kind) {
    where.push(KIND_SQL[f.kind].sql);
    args.push(...KIND_SQL[f.kind].args);
  }
  if (f.cursor) {
    const at = await q.get<{ created_at: string }>(`SELECT created_at FROM outbox WHERE org_id = ? AND id = ? AND ${FILE_CHANNELS}`, [
      orgId,
      f.cursor,
    ]);
    if (!at) throw notFound('file', f.cursor);
    where.push('(created_at < ? OR (created_at = ? AND id < ?))');
    args.push(at.created_at, at.created_at, f.cursor);
  }
  args.push(f.limit + 1);
  const rows = await q.all<OutboxRow>(
    `SELECT ${COLUMNS} FROM outbox WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`,
    args,
  );
  const page = rows.slice(0, f.limit);
  const files = page.flatMap((r) => {
    const d = fileOf(r);
    return d ? [d.file] : [];
  });
  return { files, nextCursor: rows.length > f.limit ? (page.at(-1)?.id ?? null) : null };
}

/** One file with its bytes; another organisation's, or an outbox row that is not a file, is NOT_FOUND. */
export async function fileById(q: Queryable, orgId: string, id: string): Promise<{ file: FileRow; bytes: Buffer }> {
  const row = await q.get<OutboxRow>(`SELECT ${COLUMNS} FROM outbox WHERE org_id = ? AND id = ? AND ${FILE_CHANNELS}`, [orgId, id]);
  const d = row ? fileOf(row) : null;
  if (!d) throw notFound('file', id);
  return d;
}

/** Kinds whose stored bytes hold a TFN, and the masked form each is served in. */
const MASKS: Readonly<Partial<Record<FileKind, (text: string) => string>>> = {
  stp_pay_event: maskedPayEvent,
};

/**
 * A file as served to someone who may not see a TFN: masked when its kind carries TFNs, else as
 * stored; `masked` is true when the bytes differ from the stored ones.
 */
export function servedBytes(file: FileRow, bytes: Buffer): { masked: boolean; bytes: Buffer } {
  const mask = MASKS[file.kind];
  if (!mask) return { masked: false, bytes };
  const served = Buffer.from(mask(bytes.toString('utf8')), 'utf8');
  return served.equals(bytes) ? { masked: false, bytes } : { masked: true, bytes: served };
}

/**
 * `books.file`: the row (`sha256`, `sizeBytes` of the exact stored bytes) and the bytes served as
 * base64 — for an API key never a TFN: `masked` says whether they differ from the stored bytes,
 * `contentSha256` and `contentSizeBytes` are of the bytes in `contentBase64`.
 */
export async function fileWithContent(q: Queryable, orgId: string, id: string) {
  const { file, bytes } = await fileById(q, orgId, id);
  const served = servedBytes(file, bytes);
  return {
    ...file,
    masked: served.masked,
    contentSha256: createHash('sha256').update(served.bytes).digest('hex'),
    contentSizeBytes: served.bytes.length,
    contentBase64: served.bytes.toString('base64'),
  };
}
