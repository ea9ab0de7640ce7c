import { loadProfile } from '../../org/profile.js';
import { events, tax } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueueLodgement, lodgementDocument } from '../../adapters/lodgement.js';
import { conflict, invariant } from '../../errors.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { basisOf, figuresOf, loadBas, toBas, type BasRow } from './bas.js';
import { basDueOn, basFigures, changedFigures, frequencyOf, type Figures } from './figures.js';

/**
 * books.taxSignLodge — the signature act `books.tax_sign_lodge`: always held
 * for a human, who reads the period, every label and the net. With the proof: the BAS settlement
 * journal, status `lodging`, and the lodgement document queued through the lodgement adapter in
 * the same transaction. `lodged` comes only from the adapter's confirmation (lodged.ts).
 */
type Params = Omit<z.infer<typeof tax.taxSignLodge.params>, 'approvalId' | 'signatureToken'>;

interface Subject {
  readonly row: BasRow;
  /** The figures the ledger gives now, to refuse signing figures that are no longer true. */
  readonly now: Figures;
}

async function load(p: Params, uow: Uow): Promise<Subject> {
  const row = await loadBas(uow.tx, uow.orgId, p.id, uow.caps.forUpdate);
  return { row, now: await basFigures(uow.tx, uow.orgId, row.period_start, row.period_end, basisOf(row)) };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function periodName(start: string, end: string): string {
  const month = (d: string) => MONTHS[Number(d.slice(5, 7)) - 1] ?? d;
  const year = end.slice(0, 4);
  if (frequencyOf(start, end) === 'month') return `${month(end)} ${year}`;
  return `${month(start)}–${month(end)} ${year} quarter`;
}

const dollars = (n: number) => `$${n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;

/** What the human reads: the server's words from the stored BAS, nothing the agent wrote. */
export function basSummary(row: BasRow): string {
  const f = figuresOf(row);
  const labels = tax.BAS_LABELS.map((l) => `${l} ${dollars(f.labels[l])}`).join(', ');
  const s = f.summary;
  const outcome =
    s.position === 'payable'
      ? `${dollars(s['9'])} payable to the ATO`
      : s.position === 'refundable'
        ? `${dollars(s['9'])} refundable by the ATO`
        : 'nothing payable or refundable (nil)';
  return (
    `Sign and lodge the BAS ${row.id} for ${periodName(row.period_start, row.period_end)} ` +
    `(${row.period_start} to ${row.period_end}, ${row.basis} basis, due ${basDueOn(row.period_start, row.period_end)}): ` +
    `${labels}; 4 (PAYG withheld) ${dollars(s['4'])}, 8A ${dollars(s['8A'])}, 8B ${dollars(s['8B'])}: ${outcome}. ` +
    'On approval the BAS settlement is posted and the statement is sent for lodgement; it is lodged only once the ' +
    'lodgement channel confirms delivery'
  );
}

/** A line of `signed` cents on the account's debit side (negative: a credit); zero is no line. */
function debitLine(account: string | { key: string }, signed: number, description: string): PostingLine[] {
  if (signed === 0) return [];
  return [signed > 0 ? { account, debitCents: signed, description } : { account, creditCents: -signed, description }];
}

/**
 * Dr 2100 GST collected, Cr 1200 GST paid and Dr 2200 PAYG withholding by the period's exact
 * amounts; Cr 2150 ATO integrated client account by the form's net (whole dollars); the cents
 * the form drops balance to 4200 Other income as BAS rounding. Empty for a nil BAS.
 */
export function settlementLines(f: Figures): PostingLine[] {
  const { gstCollectedCents, gstPaidCents, paygCents } = f.settlement;
  const rounding = gstCollectedCents - gstPaidCents + paygCents - f.netCents;
  return [
    ...debitLine({ key: 'gst_collected' }, gstCollectedCents, 'GST collected in the period (1A)'),
    ...debitLine({ key: 'gst_paid' }, -gstPaidCents, 'GST credits for the period (1B)'),
    ...debitLine({ key: 'payg_withholding' }, paygCents, 'PAYG withheld in the period (W2)'),
    ...debitLine({ key: 'ato_clearing' }, -f.netCents, f.netCents >= 0 ? 'BAS payable to the ATO (9)' : 'BAS refund due from the ATO (9)'),
    ...debitLine({ key: 'other_income' }, -rounding, 'BAS rounding (cents dropped on the form)'),
  ];
}

interface BasEntity {
  readonly name: string;
  readonly legalName: string | null;
  readonly abn: string | null;
}

/** The `bas` part of the lodgement document (docs/books.md "The lodgement document"). */
function basDocument(row: BasRow, f: Figures, signedLedgerId: string, entity: BasEntity) {
  return {
    // Who lodges, from the organisation profile (abn null until an owner sets it).
    entity,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    frequency: frequencyOf(row.period_start, row.period_end),
    basis: row.basis,
    gstMethod: 'accounts',
    dueOn: basDueOn(row.period_start, row.period_end),
    labels: f.labels,
    summary: f.summary,
    exactCents: f.exactCents,
    signedLedgerId,
  };
}

async function execute(_p: Params, s: Subject, uow: Uow): Promise<ResultOf<typeof tax.taxSignLodge>> {
  const { row } = s;
  const f = figuresOf(row);
  const lines = settlementLines(f);
  const journalId = lines.length > 0 ? newJournalId() : null;
  if (journalId !== null) {
    await postJournal(uow, {
      id: journalId,
      date: row.period_end,
      memo: `BAS settlement ${row.id} (${row.period_start} to ${row.period_end})`,
      source: { kind: 'bas_settlement', id: row.id },
      lines,
    });
  }
  const event = await uow.emit(events.taxSignLodge, {
    entityId: row.id,
    payload: { id: row.id, periodStart: row.period_start, periodEnd: row.period_end, labels: f.labels, netCents: f.netCents, journalId },
  });
  const profile = await loadProfile(uow.tx, uow.orgId);
  const entity = { name: profile.name, legalName: profile.legalName, abn: profile.abn };
  const content = lodgementDocument('bas', row.id, uow.orgId, uow.now, basDocument(row, f, event.ledgerId, entity));
  const queued = await enqueueLodgement(uow.tx, uow.orgId, uow.now, { kind: 'bas', subjectId: row.id, content });
  const moved = await uow.tx.run(
    'UPDATE bas_returns SET status = ?, journal_id = ?, outbox_id = ?, ledger_id = ? WHERE org_id = ? AND id = ? AND status = ?',
    ['lodging', journalId, queued.outboxId, event.ledgerId, uow.orgId, row.id, 'prepared'],
  );
  invariant(moved.changes === 1, `BAS ${row.id} moves from prepared to lodging once`);
  return toBas({ ...row, status: 'lodging', journal_id: journalId, outbox_id: queued.outboxId, ledger_id: event.ledgerId });
}

export const taxSignLodgeAct: SignatureAct<Params, Subject, typeof tax.taxSignLodge> = {
  spec: tax.taxSignLodge,
  load,
  subjectId: (s) => s.row.id,
  // Lodging a tax return always needs a human proof.
  needsProof: () => true,
  summary: (_p, s) => basSummary(s.row),
  state(_p, s) {
    const { row } = s;
    if (row.status === 'lodging' || row.status === 'lodged') return { ...toBas(row), noop: true };
    if (row.status === 'held') throw conflict(`BAS ${row.id} is held; books.taxReturn it to prepared before it can be signed`);
    const changed = changedFigures(figuresOf(row), s.now);
    if (changed.length > 0) {
      throw conflict(
        `BAS ${row.id} no longer matches the ledger (${changed.join(', ')}); books.taxReturn recomputes it for a new signature`,
      );
    }
    return null;
  },
  execute,
};

export const taxSignLodge = signatureHandler<z.infer<typeof tax.taxSignLodge.params>, Subject, typeof tax.taxSignLodge>(taxSignLodgeAct);
