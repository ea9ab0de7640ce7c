import { z } from 'zod';
import { hash64, id, method } from './index-fields.js';
import type { MethodSpec } from './types.js';
import { UPLOAD_BYTES_MAX, uploadBase64, uploadFileName, uploadMimeType } from './upload-fields.js';

/**
 * Files kept with an invoice, bill or journal (an extension beyond the core contract): the
 * supplier's invoice PDF behind a bill, the signed quote behind an invoice, the workings behind a
 * journal. Uploaded as receipts are (upload-fields.ts: same size and type bounds), stored once per
 * organisation by SHA-256, named by their document. Given when the document is created
 * (books.billCapture, books.invoiceDraft, books.journalPost: `attachments`) or added later
 * (books.attachmentAdd); the events record each file's SHA-256, name, media type and size, never
 * the bytes; books.attachment serves the bytes.
 */

export const ATTACHMENT_DOCUMENT_KINDS = ['invoice', 'bill', 'journal'] as const;
export type AttachmentDocumentKind = (typeof ATTACHMENT_DOCUMENT_KINDS)[number];

export const attachmentLimits = {
  /** Files one document keeps, however they came (at creation or added later). */
  perDocumentMax: 10,
  bytesMax: UPLOAD_BYTES_MAX,
} as const;

const documentKind = () =>
  z.enum(ATTACHMENT_DOCUMENT_KINDS, { error: `must be one of ${ATTACHMENT_DOCUMENT_KINDS.join(', ')}` }).describe('Document kind');

/** One file to attach: the receipt upload's shape. */
export const attachmentInput = z.strictObject({
  contentBase64: uploadBase64().describe('Base64, max 700 KiB'),
  filename: uploadFileName().describe('File name'),
  mimeType: uploadMimeType().describe('MIME type'),
});

/** The optional `attachments` param of a document's creating method. */
export const attachmentsParam = () =>
  z
    .array(attachmentInput)
    .min(1, { error: 'must have at least 1 file' })
    .max(attachmentLimits.perDocumentMax, { error: `must have at most ${attachmentLimits.perDocumentMax} files` })
    .optional()
    .describe('Files, max 10');

/** A document's attachment as reads list it: never the bytes (books.attachment serves them). */
export const attachment = z.object({
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: z.string(),
  filename: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  createdAt: z.string(),
  /** The event that attached it (the document's creation, or books.attachmentAdd). */
  ledgerId: z.string(),
});

/** A document read's attachments, oldest first; absent when it has none. */
export const attachmentsField = () => z.array(attachment).optional();

export const attachmentAdd = method({
  name: 'books.attachmentAdd',
  scope: 'books.write',
  kind: 'write',
  summary:
    "Attach a file (contentBase64 decoding to at most 700 KiB, filename, mimeType) to an invoice, bill or journal of any status (extension): stored with its SHA-256, one event recording sha256, filename, mimeType and sizeBytes, never the bytes. The same bytes again on the same document are a no-op answering the attachment as first kept (noop true). A document keeps at most 10 files (CONFLICT past that); an unknown document is NOT_FOUND. Answers the attachment and all of the document's attachments.",
  brief: 'Attach a file (e.g. the supplier PDF) to an invoice, bill or journal; same bytes again: no-op.',
  params: z.strictObject({
    kind: documentKind(),
    id: id().describe('Document id'),
    attachment: attachmentInput.describe('The file'),
  }),
  result: attachment.extend({
    kind: z.enum(ATTACHMENT_DOCUMENT_KINDS),
    id: z.string(),
    /** Every file the document keeps, oldest first (this one included). */
    attachments: z.array(attachment),
    noop: z.boolean().optional(),
  }),
});

export const attachmentRead = method({
  name: 'books.attachment',
  scope: 'books.read',
  kind: 'read',
  summary:
    "One file attached to an invoice, bill or journal (extension), by the document's kind and id and the file's sha256 (as the document's read lists it): its name, mimeType, sizeBytes, the event that attached it, and contentBase64, its exact bytes. A document or file not found is NOT_FOUND.",
  brief: "One attached file's bytes (base64) by document kind, id and sha256.",
  params: z.strictObject({
    kind: documentKind(),
    id: id().describe('Document id'),
    sha256: hash64().describe('From the document read'),
  }),
  result: attachment.extend({
    kind: z.enum(ATTACHMENT_DOCUMENT_KINDS),
    id: z.string(),
    contentBase64: z.string(),
  }),
});

/** Declarations of this area (see index.ts); each method once, with strict params. */
export const attachmentMethods = [attachmentAdd, attachmentRead] as const satisfies readonly MethodSpec[];
