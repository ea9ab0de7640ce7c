import type { board as boardSpecs } from '@finance-desk/protocol';
import { events } from '@finance-desk/protocol';
import type { z } from 'zod';
import { conflict, invariant, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { eventJson, eventsOfEntity } from '../../ledger/read.js';
import type { Queryable } from '../../storage/types.js';
import type { Uow } from '../../write-path.js';

type Priority = z.infer<typeof boardSpecs.createTask.params>['priority'];

const RANK: Readonly<Record<Priority, number>> = { urgent: 0, high: 1, normal: 2, low: 3 };

interface ItemRow {
  id: string;
  title: string;
  priority: Priority;
  col: 'ready' | 'claimed';
  claimed_by: string | null;
  created_at: string;
  ledger_id: string;
}

const ITEM_COLUMNS = 'id, title, priority, col, claimed_by, created_at, ledger_id';

function toTask(row: ItemRow) {
  return {
    id: row.id,
    title: row.title,
    priority: row.priority,
    col: row.col,
    claimedBy: row.claimed_by,
    createdAt: row.created_at,
    ledgerId: row.ledger_id,
  };
}

export async function createTask(params: z.infer<typeof boardSpecs.createTask.params>, uow: Uow) {
  const id = newId('task');
  const event = await uow.emit(events.itemCreated, {
    entityId: id,
    payload: { title: params.title, priority: params.priority, col: 'ready' },
  });
  await uow.tx.run(
    `INSERT INTO board_items (org_id, id, title, priority, priority_rank, col, claimed_by, created_at, ledger_id)
     VALUES (?, ?, ?, ?, ?, 'ready', NULL, ?, ?)`,
    [uow.orgId, id, params.title, params.priority, RANK[params.priority], uow.now, event.ledgerId],
  );
  return toTask({
    id,
    title: params.title,
    priority: params.priority,
    col: 'ready',
    claimed_by: null,
    created_at: uow.now,
    ledger_id: event.ledgerId,
  });
}

/**
 * Claim a ready item. Writes of one organisation are serialised (ledger head lock), so of many
 * concurrent claims the first wins and every later one finds the item claimed: CONFLICT,
 * whoever asks, the winner included.
 */
export async function claim(params: z.infer<typeof boardSpecs.claim.params>, uow: Uow) {
  const row = await uow.tx.get<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM board_items WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`, [
    uow.orgId,
    params.id,
  ]);
  if (!row) throw notFound('board item', params.id);
  if (row.col !== 'ready') {
    throw conflict(`board item ${row.id} is already claimed by ${row.claimed_by ?? 'someone'}`);
  }
  const event = await uow.emit(events.itemClaimed, {
    entityId: row.id,
    payload: { claimedBy: uow.actor, col: 'claimed' },
  });
  const moved = await uow.tx.run(
    `UPDATE board_items SET col = 'claimed', claimed_by = ?, ledger_id = ?
     WHERE org_id = ? AND id = ? AND col = 'ready'`,
    [uow.actor, event.ledgerId, uow.orgId, row.id],
  );
  invariant(moved.changes === 1, 'a ready item moves to claimed exactly once');
  return toTask({ ...row, col: 'claimed', claimed_by: uow.actor, ledger_id: event.ledgerId });
}

export async function ready(q: Queryable, orgId: string, limit: number) {
  const rows = await q.all<ItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM board_items WHERE org_id = ? AND col = 'ready'
     ORDER BY priority_rank, created_at, id LIMIT ?`,
    [orgId, limit],
  );
  return { items: rows.map(toTask) };
}

/** One item with its history: every ledger event about it, exactly as hashed. Returns JSON text. */
export async function context(q: Queryable, orgId: string, id: string): Promise<string> {
  const row = await q.get<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM board_items WHERE org_id = ? AND id = ?`, [orgId, id]);
  if (!row) throw notFound('board item', id);
  const history = await eventsOfEntity(q, orgId, id);
  return `{"item":${JSON.stringify(toTask(row))},"history":[${history.map(eventJson).join(',')}]}`;
}
