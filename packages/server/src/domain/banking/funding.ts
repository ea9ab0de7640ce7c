import { quoted } from '../../governance/quote.js';
import type { ResolvedFunding } from './accounts.js';

/**
 * The funding side of a bank (ABA) file as the human's card shows it: every field the file will
 * carry for the paying account, written as the file writes it (names in capitals), so what is
 * approved is what the bank receives — the trace BSB and account number, the self-balancing
 * record's account title, the header's bank code, APCA user id and user name, the remitter name,
 * and whether a self-balancing record is added. Text is quoted (it may come from an agent).
 */
export function fundingCard(
  f: ResolvedFunding,
  o: { readonly selfBalancing: boolean; readonly record: { readonly id: string; readonly accountCode: string } | null },
): string {
  const title = (f.accountName ?? f.userName).toUpperCase();
  const from = o.record
    ? `bank account record ${o.record.id} (chart account ${o.record.accountCode})`
    : 'inline funding details (chart account 1000)';
  return (
    `funding account BSB ${f.bsb} account number ${f.accountNumber}, account title ${quoted(title)}, ` +
    `bank code ${f.bankCode}, APCA user id ${f.apcaUserId}, user name ${quoted(f.userName.toUpperCase())}, ` +
    `remitter name ${quoted(f.remitterName.toUpperCase())}, self-balancing ${o.selfBalancing ? 'yes' : 'no'}; from ${from}`
  );
}
