import type { Migration } from '../../storage/migration-types.js';

/**
 * The bill-approval rule's BANK_DETAILS_CHANGED for bills captured before it existed: an open bill
 * (captured, held or on hold) from a payee with an approved bill, whose BSB or account number
 * differs from the most recently approved, not returned, bill of that payee that had any (or that
 * brings the payee's first details), is held with that reason, as billCapture now does. Without
 * this an agent could still approve such a bill alone. No event: the schema moves, not an act.
 */
export const migration: Migration = {
  id: 14,
  name: 'payables: hold open bills whose payee bank details differ from those last approved',
  statements: [
    `UPDATE bills SET
       held_reason = 'BANK_DETAILS_CHANGED',
       status = CASE WHEN status = 'captured' THEN 'held' ELSE status END
     WHERE status IN ('captured', 'held', 'on_hold')
       AND payee_bsb IS NOT NULL AND payee_account_number IS NOT NULL
       AND (held_reason IS NULL OR held_reason <> 'BANK_DETAILS_CHANGED')
       AND EXISTS (SELECT 1 FROM bills k WHERE k.org_id = bills.org_id AND k.payee_key = bills.payee_key
                   AND k.approved_at IS NOT NULL)
       AND COALESCE(
         (SELECT a.payee_bsb || ' ' || a.payee_account_number FROM bills a
          WHERE a.org_id = bills.org_id AND a.payee_key = bills.payee_key AND a.approved_at IS NOT NULL
            AND a.status <> 'returned' AND a.payee_bsb IS NOT NULL
          ORDER BY a.approved_at DESC, a.id DESC LIMIT 1),
         '') <> payee_bsb || ' ' || payee_account_number`,
  ],
};
