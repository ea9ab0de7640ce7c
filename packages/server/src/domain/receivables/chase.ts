import { events, books } from '@finance-desk/protocol';
import type { z } from 'zod';
import { enqueueEmail } from '../../adapters/outbox.js';
import { conflict, DomainError, invariant, notFound } from '../../errors.js';
import { signatureHandler, type SignatureAct } from '../../governance/signature.js';
import { formatCents } from '../../money.js';
import { quoted } from '../../governance/quote.js';
import { OPEN_STATUSES, outstandingOn } from './ledger-api.js';
import { invoicePdf } from './documents.js';
import { loadSaleLines } from './invoice-lines.js';

/**
 * Dunning: step 1 is the first reminder and runs at once; step 2 and above escalate and are
 * a signature act. Steps go in order; repeating the last step done is a no-op. A sent invoice not
 * fully paid (sent or part_paid) can be chased, for what is still outstanding.
 */
interface ChaseRow {
  id: string;
  /** The number the customer knows the invoice by (INV-0001). */
  number: string | null;
  status: string;
  payee_name: string;
  payee_email: string | null;
  total_cents: number;
  due_on: string | null;
  chase_step: number;
  chase_ledger_id: string | null;
  journal_id: string | null;
  /** What is still owed (the ledger's 1100 balance once posted): what a reminder asks for. */
  outstanding_cents: number;
  /** For the invoice PDF a reminder carries. */
  description: string;
  gst_cents: number;
  issued_on: string | null;
  /** The organisation's date when the act is judged (step 1 waits for the due date). */
  today: string;
}

type Params = Omit<z.infer<typeof books.invoiceChaseStep.params>, 'approvalId' | 'signatureToken'>;

const TONE = ['', 'Friendly reminder', 'Second notice', 'Final notice'];

/** The invoice's state in plain words: what a reminder and a human's summary say it is. */
function stateWords(row: ChaseRow): string {
  const outstanding = formatCents(row.outstanding_cents);
  const total = formatCents(Number(row.total_cents));
  const due = row.due_on ? `due ${row.due_on}` : 'due on receipt';
  if (row.status === 'part_paid') return `part_paid: ${outstanding} outstanding of ${total}, ${due}`;
  if (row.outstanding_cents === Number(row.total_cents)) return `sent, unpaid: ${outstanding} outstanding, ${due}`;
  return `sent: ${outstanding} outstanding of ${total}, ${due}`;
}

function reminder(row: ChaseRow, step: number) {
  const amount = formatCents(row.outstanding_cents);
  const tone = TONE[Math.min(step, 3)] ?? 'Final notice';
  const due = `due on ${row.due_on ?? 'receipt'}`;
  const name = row.number ?? row.id;
  return {
    to: row.payee_email,
    subject: `${tone}: invoice ${name} for ${amount}`,
    text: [
      `Dear ${row.payee_name},`,
      '',
      row.status === 'part_paid'
        ? `Thank you for your payment so far. Our records show ${amount} of invoice ${name} (total ${formatCents(Number(row.total_cents))}), ${due}, is still outstanding.`
        : `Our records show ${amount} of invoice ${name} (total ${formatCents(Number(row.total_cents))}), ${due}, is not yet paid.`,
      step >= 3
        ? 'This is our final notice before the matter is escalated. Please pay now or contact us today.'
        : step === 2
          ? 'Please arrange payment within 7 days or let us know if there is a problem.'
          : 'If you have already paid, thank you and please disregard this reminder.',
      '',
      'Kind regards,',
      'Accounts receivable',
    ].join('\n'),
  };
}

export const chaseAct: SignatureAct<Params, ChaseRow, typeof books.invoiceChaseStep> = {
  spec: books.invoiceChaseStep,
  async load(params, uow) {
    const row = await uow.tx.get<Omit<ChaseRow, 'outstanding_cents' | 'today'>>(
      `SELECT id, number, status, payee_name, payee_email, total_cents, due_on, chase_step, chase_ledger_id, journal_id,
         description, gst_cents, issued_on
       FROM invoices WHERE org_id = ? AND id = ?${uow.caps.forUpdate}`,
      [uow.orgId, params.id],
    );
    if (!row) throw notFound('invoice', params.id);
    // An invoice sent before invoices were posted has no ledger balance: all of it is owed.
    const owed = row.journal_id === null ? Number(row.total_cents) : await outstandingOn(uow.tx, uow.orgId, row.id);
    return { ...row, outstanding_cents: owed, today: uow.today };
  },
  subjectId: (row) => row.id,
  needsProof: (params) => params.step >= 2,
  // The human sees the invoice as it is now: part_paid with what is left, not "unpaid".
  summary: (params, row) =>
    `Send dunning step ${params.step} (${TONE[Math.min(params.step, 3)] ?? 'Final notice'}) for invoice ${row.id} ` +
    // The payee name is the agent's words: quoted, so they cannot pass for ours.
    `to ${quoted(row.payee_name)}${row.payee_email ? ` <${row.payee_email}>` : ''} (${stateWords(row)})`,
  state(params, row) {
    if (!OPEN_STATUSES.includes(row.status)) {
      throw conflict(`invoice ${row.id} is ${row.status}; only a sent or part_paid invoice can be chased`);
    }
    const done = Number(row.chase_step);
    if (params.step === done) return { id: row.id, step: done, ledgerId: row.chase_ledger_id ?? '', noop: true };
    if (params.step !== done + 1) {
      throw conflict(
        `invoice ${row.id}: step ${params.step} needs step ${params.step - 1} first; last step done is ${done === 0 ? 'none' : done}`,
      );
    }
    // A first reminder before the invoice falls due is a mistake unless asked for.
    if (params.step === 1 && params.early !== true && row.due_on !== null && row.today < row.due_on) {
      throw new DomainError(
        'BAD_REQUEST',
        `early: invoice ${row.id} is not due until ${row.due_on} (today is ${row.today}); pass early: true to send the first reminder now`,
        { field: 'early' },
      );
    }
    return null;
  },
  async execute(params, row, uow) {
    const message = reminder(row, params.step);
    // Redacted by design: who, which channel, how many recipients — never the body.
    const event = await uow.emit(events.invoiceChase, {
      entityId: row.id,
      payload: {
        step: params.step,
        channel: 'email',
        recipients: message.to ? 1 : 0,
        totalCents: Number(row.total_cents),
        outstandingCents: row.outstanding_cents,
      },
    });
    const moved = await uow.tx.run(
      'UPDATE invoices SET chase_step = ?, chase_ledger_id = ? WHERE org_id = ? AND id = ? AND chase_step = ?',
      [params.step, event.ledgerId, uow.orgId, row.id, params.step - 1],
    );
    invariant(moved.changes === 1, 'a chase step is recorded once');
    // The reminder carries the invoice again, as it was issued.
    const lines = (await loadSaleLines(uow.tx, uow.orgId, [row.id])).get(row.id) ?? [];
    const pdf =
      message.to && row.issued_on && row.due_on && lines.length > 0
        ? await invoicePdf(uow.tx, uow.orgId, row, lines, { issuedOn: row.issued_on, dueOn: row.due_on })
        : null;
    await enqueueEmail(uow.tx, uow.orgId, uow.now, pdf ? { ...message, attachments: [pdf] } : message);
    return { id: row.id, step: params.step, ledgerId: event.ledgerId };
  },
};

export const invoiceChaseStep = signatureHandler<z.infer<typeof books.invoiceChaseStep.params>, ChaseRow, typeof books.invoiceChaseStep>(
  chaseAct,
);
