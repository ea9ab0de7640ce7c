import { createHash } from 'node:crypto';
import { events, reconciliation as spec } from '@finance-desk/protocol';
import type { z } from 'zod';
import { notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { lockLine } from './feed-lines.js';
import { decodeUpload } from '../attachments/upload.js';

/**
 * books.receiptsRegister: keep the evidence behind a coded line or an expense claim. A receipt is
 * its bytes: the same bytes again are the same receipt (SHA-256, unique per organisation), so a
 * retry is a no-op and a second link (the card line and the claim it funds) is a new link. The
 * bytes stay in the database as base64 TEXT; events carry the hash, size and type, never the
 * bytes or the file name.
 */
type Params = z.infer<typeof spec.receiptsRegister.params>;
type LinkKind = 'line' | 'claim';

interface ReceiptRow {
  id: string;
  sha256: string;
  size_bytes: number;
  mime_type: string;
  filename: string;
  ledger_id: string;
}

async function linkOf(uow: Uow, p: Params): Promise<{ kind: LinkKind; id: string } | null> {
  if (p.lineId !== undefined) {
    await lockLine(uow, p.lineId);
    return { kind: 'line', id: p.lineId };
  }
  if (p.claimId !== undefined) {
    const claim = await uow.tx.get('SELECT id FROM expense_claims WHERE org_id = ? AND id = ?', [uow.orgId, p.claimId]);
    if (!claim) throw notFound('expense claim', p.claimId);
    return { kind: 'claim', id: p.claimId };
  }
  return null;
}

async function answer(uow: Uow, r: ReceiptRow, ledgerId: string, noop: boolean) {
  const links = await uow.tx.all<{ target_kind: LinkKind; target_id: string }>(
    'SELECT target_kind, target_id FROM receipt_links WHERE org_id = ? AND receipt_id = ? ORDER BY created_at, target_kind, target_id',
    [uow.orgId, r.id],
  );
  return {
    id: r.id,
    sha256: r.sha256,
    sizeBytes: Number(r.size_bytes),
    mimeType: r.mime_type,
    filename: r.filename,
    links: links.map((l) => ({ kind: l.target_kind, id: l.target_id })),
    ledgerId,
    ...(noop ? { noop: true } : {}),
  };
}

async function addLink(uow: Uow, receiptId: string, link: { kind: LinkKind; id: string }, ledgerId: string) {
  await uow.tx.run(
    'INSERT INTO receipt_links (org_id, receipt_id, target_kind, target_id, created_at, ledger_id) VALUES (?, ?, ?, ?, ?, ?)',
    [uow.orgId, receiptId, link.kind, link.id, uow.now, ledgerId],
  );
}

export async function receiptsRegister(p: Params, uow: Uow) {
  const bytes = decodeUpload(p.contentBase64, 'contentBase64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const link = await linkOf(uow, p);
  const existing = await uow.tx.get<ReceiptRow>(
    `SELECT id, sha256, size_bytes, mime_type, filename, ledger_id FROM receipts WHERE org_id = ? AND sha256 = ?${uow.caps.forUpdate}`,
    [uow.orgId, sha256],
  );
  if (existing) {
    const linked =
      link === null
        ? undefined
        : await uow.tx.get<{ ledger_id: string }>(
            'SELECT ledger_id FROM receipt_links WHERE org_id = ? AND receipt_id = ? AND target_kind = ? AND target_id = ?',
            [uow.orgId, existing.id, link.kind, link.id],
          );
    if (link === null || linked) return answer(uow, existing, linked?.ledger_id ?? existing.ledger_id, true);
    const event = await uow.emit(events.receiptLink, {
      entityId: existing.id,
      payload: { receiptId: existing.id, sha256, linkKind: link.kind, linkId: link.id },
    });
    await addLink(uow, existing.id, link, event.ledgerId);
    return answer(uow, existing, event.ledgerId, false);
  }
  const id = newId('rcpt');
  const event = await uow.emit(events.receiptRegister, {
    entityId: id,
    payload: {
      receiptId: id,
      sha256,
      sizeBytes: bytes.length,
      mimeType: p.mimeType,
      linkKind: link?.kind ?? null,
      linkId: link?.id ?? null,
    },
  });
  await uow.tx.run(
    `INSERT INTO receipts (org_id, id, sha256, size_bytes, mime_type, filename, content_base64, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [uow.orgId, id, sha256, bytes.length, p.mimeType, p.filename, p.contentBase64, uow.now, event.ledgerId],
  );
  if (link) await addLink(uow, id, link, event.ledgerId);
  const row: ReceiptRow = {
    id,
    sha256,
    size_bytes: bytes.length,
    mime_type: p.mimeType,
    filename: p.filename,
    ledger_id: event.ledgerId,
  };
  return answer(uow, row, event.ledgerId, false);
}
