import type { Migration } from '../../storage/migration-types.js';

/**
 * Migration 53: files kept with invoices, bills and journals (attachments.ts). The bytes are
 * stored once per organisation and SHA-256 (base64 TEXT, as receipts keep theirs), however many
 * documents name them; each document's file is a row of its own with the name and media type it
 * was given, its place among the document's files (0, 1, …, in the order given and added) and the
 * event that attached it. A document names a file at most once, which is what makes the same file
 * again a no-op.
 */
export const migration: Migration = {
  id: 53,
  name: 'attachments: files kept with invoices, bills and journals',
  statements: [
    `CREATE TABLE attachment_contents (
      org_id TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      content_base64 TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (org_id, sha256)
    )`,
    `CREATE TABLE document_attachments (
      org_id TEXT NOT NULL,
      id TEXT NOT NULL,
      doc_kind TEXT NOT NULL,
      doc_id TEXT NOT NULL,
      file_no BIGINT NOT NULL,
      sha256 TEXT NOT NULL,
      filename TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      created_at TEXT NOT NULL,
      ledger_id TEXT NOT NULL,
      PRIMARY KEY (org_id, id)
    )`,
    'CREATE UNIQUE INDEX document_attachments_file ON document_attachments (org_id, doc_kind, doc_id, sha256)',
  ],
};
