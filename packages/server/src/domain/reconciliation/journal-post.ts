import { events, FIXED_ASSET_ACCOUNT, type reconciliation } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest } from '../../errors.js';
import type { Uow } from '../../write-path.js';
import { accountOf, newJournalId, postJournal, trackingFields } from '../gl/post.js';
import { resolveLineTracking, trackingNamer } from '../tracking/store.js';
import { directPostingProblem, directPostingReads, taxedPosting } from './tax-lines.js';
import { journalAssetLineProblems, plannedJournalAssets, registerAssets } from '../assets/register.js';
import { attachedPayload, prepareFiles, saveFiles, withFiles } from '../attachments/store.js';

/**
 * books.journalPost: a manual journal (opening balances, accruals, corrections, a loan drawn).
 * Balanced by the schema (`lines: debits (N) must equal credits (M)`); every account is checked
 * here and every problem named (`lines[i].accountCode: …`). Each call is a new journal: there is
 * no state to be idempotent by, so a safe retry needs an x-idempotency-key.
 */
type Params = z.infer<typeof reconciliation.journalPost.params>;

export async function journalPost(p: Params, uow: Uow) {
  // Files kept with it (the workings behind it): checked before anything is read or written.
  const files = prepareFiles(p.attachments);
  const today = uow.today;
  const problems: string[] = [];
  if (p.date > today) problems.push(`date: ${p.date} is in the future; post it on or after that day`);
  const isAssetLine = (l: Params['lines'][number]) => l.accountCode === FIXED_ASSET_ACCOUNT || l.asset !== undefined;
  // The lines' accounts in one round trip, kept by the batch for the checks below.
  await uow.readTogether(
    directPostingReads(
      uow.orgId,
      p.lines.filter((l) => !isAssetLine(l)).map((l) => l.accountCode),
    ),
  );
  for (const [i, l] of p.lines.entries()) {
    // A 1500 line registers a fixed asset (checked in domain/assets).
    if (isAssetLine(l)) {
      problems.push(...journalAssetLineProblems(l, i));
      continue;
    }
    const problem = await directPostingProblem(uow.tx, uow.orgId, l.accountCode, l.taxCode, `lines[${i}].accountCode`);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw badRequest(problems.join('; '));
  const tracked = await resolveLineTracking(
    uow.tx,
    uow.orgId,
    p.lines.map((l) => l.tracking),
    (i) => `lines[${i}].tracking`,
  );
  // A GST line can round to nothing (under 6 cents of GST-inclusive amount): leave it out.
  // taxedPosting keeps the given lines first, in order (its GST lines follow): each takes its tracking.
  const posting = taxedPosting(p.lines, p.memo).map((l, i) => ({ ...l, ...trackingFields(tracked[i]?.ids) }));
  const assets = plannedJournalAssets(
    p.lines,
    posting.map((l) => l.debitCents ?? 0),
  );
  const lines = posting.filter((l) => (l.debitCents ?? 0) + (l.creditCents ?? 0) > 0);
  const journalId = newJournalId();
  const posted = await postJournal(uow, {
    id: journalId,
    date: p.date,
    memo: p.memo,
    source: { kind: 'manual', id: journalId },
    lines,
  });
  const event = await uow.emit(events.journalPost, {
    entityId: journalId,
    payload: {
      journalId,
      date: p.date,
      totalCents: posted.totalCents,
      lineCount: lines.length,
      accounts: [...new Set(lines.map((l) => accountOf(l.account)))].sort(),
      ...(assets.length > 0 ? { assetIds: assets.map((a) => a.id) } : {}),
      ...attachedPayload(files),
    },
  });
  await registerAssets(uow, assets, { kind: 'journal', id: journalId, date: p.date, journalId, ledgerId: event.ledgerId });
  const kept = await saveFiles(uow, 'journal', journalId, files, event.ledgerId);
  const named = await trackingNamer(uow.tx, uow.orgId, posted.lines);
  const result = {
    journalId,
    date: p.date,
    memo: p.memo,
    totalCents: posted.totalCents,
    // The lines as stored; the result does not repeat their docId (a manual journal has none),
    // and shows tracking by name.
    lines: posted.lines.map(({ docId: _docId, tracking1, tracking2, ...line }) => {
      const tracking = named({ tracking1, tracking2 });
      return tracking ? { ...line, tracking } : line;
    }),
    ...(assets.length > 0 ? { assetIds: assets.map((a) => a.id) } : {}),
    ledgerId: event.ledgerId,
  };
  return withFiles(result, kept);
}
