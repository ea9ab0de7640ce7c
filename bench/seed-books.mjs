// Seed an organisation's books with `documents` posted documents, fast: multi-row INSERTs in one
// transaction, in the shapes the domain's postings write (receivables/invoice-lines.ts
// salePosting, payables/bill-lines.ts purchasePosting, payments Dr bank / Cr control with the
// document's docId). Three documents in four are sent invoices (GST sales on 4000), one in four
// approved bills (GST purchases on 6000); the documents of every other run of four are paid ten
// days after they were posted. Dates spread over the two years before `today`, so aged reports have every bucket.
//
// Used by the read-cost benchmark (run.mjs) and by the read-cost test (the same data on both
// engines). It writes rows directly, not through HTTP: 100 000 HTTP calls would measure the write
// path, which the write benchmark already does. The reports' own invariants (trial balance and
// balance sheet balance, aged totals equal their control accounts) check that the seed is sound.

const CHUNK = 200;

const FIRST = [
  'Acme',
  'Harbour',
  'Summit',
  'Coastal',
  'Granite',
  'Willow',
  'Beacon',
  'Kestrel',
  'Meridian',
  'Banksia',
  'Orchid',
  'Redgum',
  'Pioneer',
  'Lantern',
  'Juniper',
];
const SECOND = [
  'Joinery',
  'Plumbing',
  'Catering',
  'Logistics',
  'Printing',
  'Roofing',
  'Nursery',
  'Electrical',
  'Bakery',
  'Studio',
  'Freight',
  'Glazing',
  'Pharmacy',
  'Tiling',
  'Cabinets',
];

/** Party i of 225 distinct names, two words each (suggestions match on payee words). */
export function partyName(i) {
  const k = i % (FIRST.length * SECOND.length);
  return `${FIRST[k % FIRST.length]} ${SECOND[Math.floor(k / FIRST.length)]} Pty Ltd`;
}

function addDays(date, days) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Buffers rows per table and flushes them as multi-row INSERTs of CHUNK rows. */
function inserter(tx) {
  const pending = new Map();
  const flush = async (table) => {
    const entry = pending.get(table);
    if (!entry || entry.rows.length === 0) return;
    const one = `(${entry.columns.map(() => '?').join(', ')})`;
    const sql = `INSERT INTO ${table} (${entry.columns.join(', ')}) VALUES ${entry.rows.map(() => one).join(', ')}`;
    const params = entry.rows.flat();
    entry.rows = [];
    await tx.run(sql, params);
  };
  return {
    async add(table, columns, row) {
      const entry = pending.get(table) ?? { columns, rows: [] };
      pending.set(table, entry);
      entry.rows.push(row);
      if (entry.rows.length >= CHUNK) await flush(table);
    },
    async done() {
      for (const table of pending.keys()) await flush(table);
    },
  };
}

const JOURNAL = ['org_id', 'id', 'date', 'memo', 'source_kind', 'source_id', 'ledger_id', 'created_at'];
const LINE = [
  'org_id',
  'journal_id',
  'line_no',
  'account_code',
  'debit_cents',
  'credit_cents',
  'tax_code',
  'tax_base_cents',
  'gst_cents',
  'description',
  'doc_id',
];
const INVOICE = [
  'org_id',
  'id',
  'status',
  'payee_name',
  'description',
  'total_cents',
  'due_days',
  'created_at',
  'issued_on',
  'due_on',
  'ledger_id',
  'gst_cents',
  'journal_id',
  'contact_id',
  'number',
];
const INVOICE_LINE = ['org_id', 'invoice_id', 'line_no', 'description', 'amount_cents', 'tax_code', 'account_code', 'gst_cents'];
const BILL = [
  'org_id',
  'id',
  'status',
  'payee_name',
  'payee_key',
  'description',
  'total_cents',
  'due_days',
  'due_on',
  'created_at',
  'approved_at',
  'ledger_id',
  'gst_cents',
  'journal_id',
  'contact_id',
];
// Every party is a contact (customer and supplier); the names are ASCII, so lower case
// is their search key (server domain/search-key.ts).
const CONTACT = ['org_id', 'id', 'name', 'name_key', 'is_customer', 'is_supplier', 'created_at', 'updated_at', 'ledger_id'];
const BILL_LINE = ['org_id', 'bill_id', 'line_no', 'description', 'amount_cents', 'tax_code', 'account_code'];

/**
 * Post `documents` documents for `orgId` inside `tx` (a Database.write transaction). `ledgerId`
 * is the one event the seeding unit appended; every seeded row points at it.
 */
export async function seedBooks(tx, { orgId, ledgerId, documents, today, prefix = 'seed' }) {
  const ins = inserter(tx);
  const now = `${today}T00:00:00.000Z`;
  const journal = (id, date, memo, kind, sourceId) => ins.add('journals', JOURNAL, [orgId, id, date, memo, kind, sourceId, ledgerId, now]);
  const line = (jid, no, account, dr, cr, tax, doc) =>
    ins.add('journal_lines', LINE, [
      orgId,
      jid,
      no,
      account,
      dr,
      cr,
      tax?.code ?? null,
      tax?.base ?? 0,
      tax?.gst ?? 0,
      `line ${no}`,
      doc ?? null,
    ]);
  const contacts = new Map();
  const contactOf = async (party) => {
    const known = contacts.get(party);
    if (known) return known;
    const id = `con_${prefix}_${contacts.size}`;
    contacts.set(party, id);
    await ins.add('contacts', CONTACT, [orgId, id, party, party.toLowerCase(), 1, 1, now, now, ledgerId]);
    return id;
  };
  for (let i = 0; i < documents; i += 1) {
    const total = 11_000 + (i % 97) * 1_100;
    const gst = total / 11;
    const date = addDays(today, -((i * 7919) % 730) - 11);
    const party = partyName(i);
    const id = `${prefix}_${i}`;
    const jid = `jnl_${prefix}_${i}`;
    const paid = Math.floor(i / 4) % 2 === 0;
    if (i % 4 !== 3) {
      await ins.add('invoices', INVOICE, [
        orgId,
        id,
        paid ? 'paid' : 'sent',
        party,
        'Services',
        total,
        14,
        now,
        date,
        addDays(date, 14),
        ledgerId,
        gst,
        jid,
        await contactOf(party),
        // Every sent invoice has a number (the reads hold it to that); outside the organisation's INV- sequence.
        `SEED-${i}`,
      ]);
      await ins.add('invoice_lines', INVOICE_LINE, [orgId, id, 1, 'Services', total, 'GST', '4000', gst]);
      await journal(jid, date, `Invoice ${id}`, 'invoice', id);
      await line(jid, 1, '1100', total, 0, null, id);
      await line(jid, 2, '4000', 0, total - gst, { code: 'GST', base: total, gst });
      await line(jid, 3, '2100', 0, gst);
      if (paid) {
        await journal(`${jid}_p`, addDays(date, 10), `Payment of invoice ${id}`, 'invoice_payment', id);
        await line(`${jid}_p`, 1, '1000', total, 0);
        await line(`${jid}_p`, 2, '1100', 0, total, null, id);
      }
    } else {
      await ins.add('bills', BILL, [
        orgId,
        id,
        paid ? 'paid' : 'approved',
        party,
        party.toLowerCase(),
        'Supplies',
        total,
        30,
        addDays(date, 30),
        now,
        `${date}T00:00:00.000Z`,
        ledgerId,
        gst,
        jid,
        await contactOf(party),
      ]);
      await ins.add('bill_lines', BILL_LINE, [orgId, id, 1, 'Supplies', total, 'GST_ON_EXPENSES', '6000']);
      await journal(jid, date, `Bill ${id}`, 'bill', id);
      await line(jid, 1, '6000', total - gst, 0, { code: 'GST_ON_EXPENSES', base: total, gst });
      await line(jid, 2, '1200', gst, 0);
      await line(jid, 3, '2000', 0, total, null, id);
      if (paid) {
        await journal(`${jid}_p`, addDays(date, 10), `Payment of bill ${id}`, 'bill_payment', id);
        await line(`${jid}_p`, 1, '2000', total, 0, null, id);
        await line(`${jid}_p`, 2, '1000', 0, total);
      }
    }
  }
  await ins.done();
  // What postJournal keeps beside the lines (packages/server/src/domain/gl/day-totals.ts):
  // recomputed from the lines for the whole organisation, as rebuildDayTotals does.
  await tx.run('DELETE FROM account_day_totals WHERE org_id = ?', [orgId]);
  await tx.run(
    `INSERT INTO account_day_totals (org_id, account_code, date, debit_cents, credit_cents, lines)
     SELECT l.org_id, l.account_code, j.date, SUM(l.debit_cents), SUM(l.credit_cents), COUNT(*)
     FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id
     WHERE l.org_id = ? GROUP BY l.org_id, l.account_code, j.date`,
    [orgId],
  );
  // The lines went in directly, not through postJournal, so the per-document balances it keeps
  // are rebuilt from them (domain/gl/document-balances.ts rebuildDocumentBalances, same SQL).
  await tx.run('DELETE FROM document_balances WHERE org_id = ?', [orgId]);
  await tx.run(
    `INSERT INTO document_balances (org_id, account_code, doc_id, debit_cents, credit_cents, balance_cents)
     SELECT org_id, account_code, doc_id, SUM(debit_cents), SUM(credit_cents), SUM(debit_cents) - SUM(credit_cents)
     FROM journal_lines WHERE doc_id IS NOT NULL AND org_id = ? GROUP BY org_id, account_code, doc_id`,
    [orgId],
  );
  // And the words bank lines are matched by, from the compiled server's own rebuild: the words
  // follow its rules (suggest.ts lookupWords), which this file should not copy. After the
  // balances, which say which documents are open.
  const words = new URL('../packages/server/dist/domain/reconciliation/document-words.js', import.meta.url);
  const { rebuildDocumentWords } = await import(words.href);
  await rebuildDocumentWords(tx, orgId);
  // The statement of cash flows' and the GST summary's rows per day, also from the compiled
  // server's own rebuilds: they classify each journal by the report's rules.
  const cashFlowDays = new URL('../packages/server/dist/domain/reports/cash-flow-days.js', import.meta.url);
  const { rebuildCashFlowDays } = await import(cashFlowDays.href);
  await rebuildCashFlowDays(tx, orgId);
  const gstDays = new URL('../packages/server/dist/domain/reports/gst-days.js', import.meta.url);
  const { rebuildGstDays } = await import(gstDays.href);
  await rebuildGstDays(tx, orgId);
  // Likewise the bank postings bank lines can be matched to (reconciliation/bank-journal-words.ts).
  const journalWords = new URL('../packages/server/dist/domain/reconciliation/bank-journal-words.js', import.meta.url);
  const { rebuildBankJournalWords } = await import(journalWords.href);
  await rebuildBankJournalWords(tx, orgId);
}
