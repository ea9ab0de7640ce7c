import type { attachments as spec } from '@finance-desk/protocol';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { badRequest } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { decodeUpload } from './upload.js';

/**
 * Files kept with invoices, bills and journals. A file is its bytes: stored once per organisation
 * by SHA-256 (attachment_contents), named by each document that keeps it (document_attachments,
 * with the name and media type that document was given). Events record the SHA-256, name, media
 * type and size, never the bytes, so the chain commits to exactly which file each document keeps
 * and the audit pack can show it.
 */
export type DocumentKind = spec.AttachmentDocumentKind;
type Input = z.infer<typeof spec.attachmentInput>;
export type Attachment = z.infer<typeof spec.attachment>;

/** A file decoded and hashed, ready to be bound into an event and stored. */
export interface PreparedFile {
  readonly sha256: string;
  readonly sizeBytes: number;
  readonly filename: string;
  readonly mimeType: string;
  readonly contentBase64: string;
}

/** The table each kind of document lives in, and what a refusal calls it. */
export const DOCUMENT_TABLES: Readonly<Record<DocumentKind, { readonly table: string; readonly noun: string }>> = {
  invoice: { table: 'invoices', noun: 'invoice' },
  bill: { table: 'bills', noun: 'bill' },
  journal: { table: 'journals', noun: 'journal' },
};

export function prepareFile(input: Input, field: string): PreparedFile {
  const bytes = decodeUpload(input.contentBase64, `${field}.contentBase64`);
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    sizeBytes: bytes.length,
    filename: input.filename,
    mimeType: input.mimeType,
    contentBase64: input.contentBase64,
  };
}

/**
 * The `attachments` a creating method was given, decoded and checked before anything is written
 * (BAD_REQUEST naming attachments[i]); the same bytes twice in one call are refused rather than
 * kept once under one of two names.
 */
export function prepareFiles(inputs: readonly Input[] | undefined): PreparedFile[] {
  const files = (inputs ?? []).map((input, i) => prepareFile(input, `attachments[${i}]`));
  for (const [i, f] of files.entries()) {
    const first = files.findIndex((g) => g.sha256 === f.sha256);
    if (first !== i) throw badRequest(`attachments[${i}]: the same file as attachments[${first}] (sha256 ${f.sha256})`);
  }
  return files;
}

/** What an event records of a file. */
export const fileRef = (f: PreparedFile) => ({ sha256: f.sha256, filename: f.filename, mimeType: f.mimeType, sizeBytes: f.sizeBytes });

/** The payload field a creating method's event carries: absent when it was given no files. */
export const attachedPayload = (files: readonly PreparedFile[]) => (files.length > 0 ? { attachments: files.map(fileRef) } : {});

/**
 * Keep `files` with the document, recorded by the event `ledgerId`, after the `kept` it has
 * already; answers them as reads list them.
 */
export async function saveFiles(
  uow: Uow,
  kind: DocumentKind,
  docId: string,
  files: readonly PreparedFile[],
  ledgerId: string,
  kept = 0,
): Promise<Attachment[]> {
  for (const [i, f] of files.entries()) {
    // The bytes once per organisation: another document's copy of the same file is the same row.
    await uow.tx.run(
      `INSERT INTO attachment_contents (org_id, sha256, size_bytes, content_base64, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (org_id, sha256) DO NOTHING`,
      [uow.orgId, f.sha256, f.sizeBytes, f.contentBase64, uow.now],
    );
    await uow.tx.run(
      `INSERT INTO document_attachments (org_id, id, doc_kind, doc_id, file_no, sha256, filename, mime_type, size_bytes, created_at, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [uow.orgId, newId('att'), kind, docId, kept + i, f.sha256, f.filename, f.mimeType, f.sizeBytes, uow.now, ledgerId],
    );
  }
  return files.map((f) => ({ ...fileRef(f), createdAt: uow.now, ledgerId }));
}

/** A document's result with its files, the field left out when it has none (as reads answer). */
export function withFiles<T extends object>(doc: T, files: readonly Attachment[] | undefined): T & { attachments?: Attachment[] } {
  return files && files.length > 0 ? { ...doc, attachments: [...files] } : doc;
}

interface AttachmentRow {
  doc_id: string;
  sha256: string;
  filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: string;
  ledger_id: string;
}

export const toAttachment = (r: AttachmentRow): Attachment => ({
  sha256: r.sha256,
  filename: r.filename,
  mimeType: r.mime_type,
  sizeBytes: Number(r.size_bytes),
  createdAt: r.created_at,
  ledgerId: r.ledger_id,
});

/** The files of documents of one kind (a read's page), oldest first per document. */
export async function filesOf(q: Queryable, orgId: string, kind: DocumentKind, ids: readonly string[]): Promise<Map<string, Attachment[]>> {
  const out = new Map<string, Attachment[]>();
  if (ids.length === 0) return out;
  const rows = await q.all<AttachmentRow>(
    `SELECT doc_id, sha256, filename, mime_type, size_bytes, created_at, ledger_id FROM document_attachments
     WHERE org_id = ? AND doc_kind = ? AND doc_id IN (${ids.map(() => '?').join(', ')}) ORDER BY doc_id, file_no`,
    [orgId, kind, ...ids],
  );
  for (const r of rows) out.set(r.doc_id, [...(out.get(r.doc_id) ?? []), toAttachment(r)]);
  return out;
}
