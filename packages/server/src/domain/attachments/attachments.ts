import { attachments as spec, events } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { ReadContext } from '../../binding.js';
import { conflict, DomainError, invariant } from '../../errors.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';
import { DOCUMENT_TABLES, filesOf, fileRef, prepareFile, saveFiles, toAttachment, type DocumentKind } from './store.js';

/**
 * books.attachmentAdd: a file kept with an invoice, bill or journal after it was created, whatever
 * its status (evidence changes no posting, so a void invoice or a journal in a locked period may
 * still gain its paperwork). Idempotent by state: the same bytes again on the same document are a
 * no-op answering the file as first kept, under the name it was first given. Each addition is
 * its own event. books.attachment serves a file's bytes.
 */
type AddParams = z.infer<typeof spec.attachmentAdd.params>;
type ReadParams = z.infer<typeof spec.attachmentRead.params>;

const documentNotFound = (kind: DocumentKind, id: string) =>
  new DomainError('NOT_FOUND', `${DOCUMENT_TABLES[kind].noun} ${id} not found`, { field: 'id' });

async function documentExists(q: Queryable, orgId: string, kind: DocumentKind, id: string): Promise<boolean> {
  // The table name comes from the closed set of kinds, never from the request.
  return (await q.get(`SELECT id FROM ${DOCUMENT_TABLES[kind].table} WHERE org_id = ? AND id = ?`, [orgId, id])) !== undefined;
}

export async function attachmentAdd(p: AddParams, uow: Uow) {
  const file = prepareFile(p.attachment, 'attachment');
  if (!(await documentExists(uow.tx, uow.orgId, p.kind, p.id))) throw documentNotFound(p.kind, p.id);
  const kept = (await filesOf(uow.tx, uow.orgId, p.kind, [p.id])).get(p.id) ?? [];
  const answer = (files: z.infer<typeof spec.attachment>[], sha256: string, noop: boolean) => {
    const one = files.find((f) => f.sha256 === sha256);
    invariant(one, `${sha256} is among the document's files`);
    return { ...one, kind: p.kind, id: p.id, attachments: files, ...(noop ? { noop: true } : {}) };
  };
  if (kept.some((f) => f.sha256 === file.sha256)) return answer(kept, file.sha256, true);
  const max = spec.attachmentLimits.perDocumentMax;
  if (kept.length >= max) {
    throw conflict(`${DOCUMENT_TABLES[p.kind].noun} ${p.id} keeps ${kept.length} files, the most a document keeps (${max})`);
  }
  const event = await uow.emit(events.attachmentAdd, {
    entityId: p.id,
    payload: { documentKind: p.kind, documentId: p.id, ...fileRef(file) },
  });
  const added = await saveFiles(uow, p.kind, p.id, [file], event.ledgerId, kept.length);
  return answer([...kept, ...added], file.sha256, false);
}

/** books.attachment: one kept file with its exact bytes. */
export async function readAttachment(p: ReadParams, ctx: ReadContext) {
  const q = ctx.db.reader;
  const orgId = ctx.principal.orgId;
  const row = await q.get<{
    doc_id: string;
    sha256: string;
    filename: string;
    mime_type: string;
    size_bytes: number;
    created_at: string;
    ledger_id: string;
    content_base64: string;
  }>(
    `SELECT a.doc_id, a.sha256, a.filename, a.mime_type, a.size_bytes, a.created_at, a.ledger_id, c.content_base64
       FROM document_attachments a JOIN attachment_contents c ON c.org_id = a.org_id AND c.sha256 = a.sha256
      WHERE a.org_id = ? AND a.doc_kind = ? AND a.doc_id = ? AND a.sha256 = ?`,
    [orgId, p.kind, p.id, p.sha256],
  );
  if (!row) {
    if (!(await documentExists(q, orgId, p.kind, p.id))) throw documentNotFound(p.kind, p.id);
    throw new DomainError('NOT_FOUND', `${DOCUMENT_TABLES[p.kind].noun} ${p.id} keeps no file with sha256 ${p.sha256}`, {
      field: 'sha256',
    });
  }
  return { ...toAttachment(row), kind: p.kind, id: p.id, contentBase64: row.content_base64 };
}
