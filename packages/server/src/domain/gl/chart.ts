import type { Tx } from '../../storage/types.js';

/**
 * The chart of accounts every organisation starts with: an Australian small business's usual
 * accounts. `key` names the accounts that domain code posts to by role; people and agents refer to
 * accounts by `code`. Types decide the normal side: assets and expenses are debit-normal;
 * liabilities, equity and revenue credit-normal (accumulated depreciation is a contra-asset).
 */
export type AccountType = 'asset' | 'liability' | 'equity' | 'revenue' | 'expense';

export interface AccountDef {
  readonly code: string;
  readonly name: string;
  readonly type: AccountType;
  readonly key: string | null;
}

export const CHART: readonly AccountDef[] = [
  { code: '1000', name: 'Business bank account', type: 'asset', key: 'bank' },
  { code: '1100', name: 'Accounts receivable', type: 'asset', key: 'receivables' },
  { code: '1200', name: 'GST paid (input tax credits)', type: 'asset', key: 'gst_paid' },
  { code: '1300', name: 'Bank clearing (unreconciled)', type: 'asset', key: 'clearing' },
  { code: '1500', name: 'Plant and equipment', type: 'asset', key: 'fixed_assets' },
  { code: '1510', name: 'Accumulated depreciation', type: 'asset', key: 'accumulated_depreciation' },
  { code: '2000', name: 'Accounts payable', type: 'liability', key: 'payables' },
  { code: '2100', name: 'GST collected', type: 'liability', key: 'gst_collected' },
  // The ATO's running balance with the business: each lodged BAS settles 2100,
  // 1200 and 2200 against it; paying the ATO (or its refund) clears it from the bank.
  { code: '2150', name: 'ATO integrated client account', type: 'liability', key: 'ato_clearing' },
  { code: '2200', name: 'PAYG withholding payable', type: 'liability', key: 'payg_withholding' },
  { code: '2300', name: 'Superannuation payable', type: 'liability', key: 'super_payable' },
  // Employees' annual leave as a liability (books.leaveProvision; added to existing charts by migration 42).
  { code: '2350', name: 'Provision for annual leave', type: 'liability', key: 'leave_provision' },
  { code: '2400', name: 'Wages payable', type: 'liability', key: 'wages_payable' },
  { code: '2500', name: 'Expense claims payable', type: 'liability', key: 'claims_payable' },
  { code: '3000', name: "Owner's equity", type: 'equity', key: 'equity' },
  { code: '3100', name: 'Retained earnings', type: 'equity', key: 'retained_earnings' },
  { code: '4000', name: 'Sales', type: 'revenue', key: 'sales' },
  { code: '4100', name: 'Interest income', type: 'revenue', key: 'interest_income' },
  { code: '4200', name: 'Other income', type: 'revenue', key: 'other_income' },
  // Fixed asset disposals (added to existing charts by migration 22).
  { code: '4300', name: 'Gain on disposal of assets', type: 'revenue', key: 'asset_disposal_gain' },
  // Differences on foreign invoices and bills, realised and revalued (added to existing charts by migration 55).
  { code: '4400', name: 'Foreign exchange gains and losses', type: 'revenue', key: 'fx_gain_loss' },
  { code: '5000', name: 'Cost of goods sold', type: 'expense', key: 'cost_of_sales' },
  { code: '6000', name: 'General expenses', type: 'expense', key: 'general_expenses' },
  { code: '6100', name: 'Wages and salaries', type: 'expense', key: 'wages' },
  // The provision's movements (migration 42): leave paid in a run is in 6100, its release here.
  { code: '6150', name: 'Annual leave expense', type: 'expense', key: 'leave_expense' },
  { code: '6200', name: 'Superannuation', type: 'expense', key: 'super_expense' },
  { code: '6300', name: 'Bank fees', type: 'expense', key: 'bank_fees' },
  { code: '6400', name: 'Depreciation', type: 'expense', key: 'depreciation' },
  { code: '6500', name: 'Rent', type: 'expense', key: null },
  { code: '6600', name: 'Office supplies', type: 'expense', key: null },
  { code: '6700', name: 'Travel', type: 'expense', key: null },
  { code: '6800', name: 'Telephone and internet', type: 'expense', key: null },
  { code: '6900', name: 'Insurance', type: 'expense', key: null },
  { code: '7000', name: 'Bad debts', type: 'expense', key: 'bad_debts' },
  { code: '7100', name: 'Loss on disposal of assets', type: 'expense', key: 'asset_disposal_loss' },
];

export const DEBIT_NORMAL: ReadonlySet<AccountType> = new Set(['asset', 'expense']);

export async function seedChart(tx: Tx, orgId: string, now: string): Promise<void> {
  for (const a of CHART) {
    await tx.run('INSERT INTO accounts (org_id, code, name, type, system_key, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      orgId,
      a.code,
      a.name,
      a.type,
      a.key,
      now,
    ]);
  }
}

/**
 * Migration statements that give organisations created before the ledger their chart, or (with
 * `codes`) the accounts added to the chart later. An organisation that already has an account
 * code keeps it, so a later migration can run over organisations created since migration 3.
 */
export function chartBackfillStatements(codes?: readonly string[]): readonly string[] {
  const q = (s: string | null) => (s === null ? 'NULL' : `'${s.replace(/'/g, "''")}'`);
  return CHART.filter((a) => codes === undefined || codes.includes(a.code)).map(
    (a) =>
      `INSERT INTO accounts (org_id, code, name, type, system_key, created_at)
       SELECT o.id, ${q(a.code)}, ${q(a.name)}, ${q(a.type)}, ${q(a.key)}, o.created_at FROM organisations o
       WHERE NOT EXISTS (SELECT 1 FROM accounts x WHERE x.org_id = o.id AND x.code = ${q(a.code)})`,
  );
}
