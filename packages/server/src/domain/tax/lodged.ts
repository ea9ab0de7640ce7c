import { events } from '@finance-desk/protocol';
import { invariant } from '../../errors.js';
import type { LodgementConfirmer } from '../../adapters/lodgement.js';
import { loadBas } from './bas.js';

/**
 * The lodgement adapter's confirmation for a BAS (adapters/lodgement.ts): `lodging` → `lodged`
 * with the receipt (the file name and the SHA-256 of the exact document delivered), its own
 * event `books.tax.lodged` by the system (actor ""), in the transaction that marks the outbox
 * row delivered. A repeated delivery of a lodged BAS changes nothing (no event).
 */
export const confirmBasLodged: LodgementConfirmer = async (uow, file, receipt) => {
  const row = await loadBas(uow.tx, uow.orgId, file.subjectId, uow.caps.forUpdate);
  if (row.status === 'lodged') return { noop: true };
  invariant(row.status === 'lodging', `BAS ${row.id} is lodging when its lodgement is delivered (${row.status})`);
  const event = await uow.emit(events.taxLodged, {
    entityId: row.id,
    payload: { id: row.id, periodStart: row.period_start, periodEnd: row.period_end, fileName: receipt.fileName, sha256: receipt.sha256 },
  });
  await uow.tx.run(
    `UPDATE bas_returns SET status = ?, receipt_file = ?, receipt_sha256 = ?, lodged_at = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND status = ?`,
    ['lodged', receipt.fileName, receipt.sha256, receipt.lodgedAt, event.ledgerId, uow.orgId, row.id, 'lodging'],
  );
  return { id: row.id, status: 'lodged' };
};
