// Fixed assets scenario for docs/methods.md: a van registered from a manual
// journal line and a lathe from a bill line, a saw bought without its effective life (pending,
// skipped by the runs, then registered), month-end depreciation runs, a rerun (no-op), the
// register, and the van sold. Worked by hand in docs/examples/assets.md.
// Dates are relative to the organisation's today (Australia/Sydney), so the months are past ones.
import { createOrg } from '@finance-desk/server';

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const monthEnd = (monthsAgo) => {
  const [y, m] = today().split('-').map(Number);
  return new Date(Date.UTC(y, m - monthsAgo, 0)).toISOString().slice(0, 10);
};
const firstOf = (monthsAgo) => {
  const [y, m] = today().split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 - monthsAgo, 1)).toISOString().slice(0, 10);
};

/** The income year (its first calendar year) holding a date: 1 July to 30 June. */
const incomeYear = (date) => Number(date.slice(0, 4)) - (date.slice(5, 7) >= '07' ? 0 : 1);

export async function run({ post, decide, db }) {
  /** Approve a bill, through the bill-approval rule's hold when it is held. */
  const approve = async (id, note) => {
    const first = await post('books.billApprove', { id }, note);
    if (first.ok) return;
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.error.message)?.[1];
    const req = await post(
      'approval.request',
      { actionClass: 'books.bill_approve', payloadHash, subject: { kind: 'books.signature', subjectId: id } },
      'File the bill-approval hold',
    );
    await decide(req.result.approvalId);
    await post('books.billApprove', { id, approvalId: req.result.approvalId }, 'Approved with the proof');
  };
  await post(
    'books.journalPost',
    {
      date: firstOf(3),
      memo: 'Delivery van bought by the owner',
      lines: [
        {
          accountCode: '1500',
          debitCents: 4_400_000,
          taxCode: 'GST_ON_CAPITAL',
          description: 'Van',
          asset: { name: 'Delivery van', effectiveLifeYears: 8, method: 'prime_cost' },
        },
        { accountCode: '3000', creditCents: 4_400_000 },
      ],
    },
    'A debit line on 1500 with asset details registers a fixed asset (cost: the GST-exclusive amount)',
  );
  await post(
    'books.journalPost',
    {
      date: firstOf(3),
      memo: 'No details',
      lines: [
        { accountCode: '1500', debitCents: 100_000 },
        { accountCode: '3000', creditCents: 100_000 },
      ],
    },
    'A line on 1500 without asset details is refused',
  );
  const bill = await post(
    'books.billCapture',
    {
      payeeName: 'Harbour Machinery',
      description: 'Lathe',
      dueDays: 30,
      lines: [
        {
          description: 'Lathe',
          amountCents: 1_650_000,
          taxCode: 'GST_ON_CAPITAL',
          asset: { name: 'Lathe', effectiveLifeYears: 10, method: 'diminishing_value' },
        },
      ],
    },
    'A bill line on 1500 with asset details: registered when the bill is approved',
  );
  await approve(bill.result.id, 'Approve it (a new payee above the floor is held for a human): the lathe is registered');
  const saw = await post(
    'books.billCapture',
    {
      payeeName: 'Harbour Machinery',
      description: 'Panel saw',
      dueDays: 30,
      issueDate: firstOf(2),
      lines: [{ description: 'Panel saw', amountCents: 880_000, taxCode: 'GST_ON_CAPITAL' }],
    },
    'A capital purchase captured without its effective life: the line is accepted',
  );
  await approve(saw.result.id, 'Approve it: the saw is a pending asset (on 1500 at cost, not depreciated)');
  const pending = await post('books.assets', { status: 'pending' }, 'Pending assets await books.assetRegister');
  await post('books.assetDepreciationRun', { periodEnd: today() }, 'periodEnd must be the last day of a month');
  for (const ago of [3, 2]) {
    await post(
      'books.assetDepreciationRun',
      { periodEnd: monthEnd(ago) },
      `Depreciation to ${monthEnd(ago)}: Dr 6400 / Cr 1510 per asset (a pending asset started by then is skipped and counted)`,
    );
  }
  const sawId = pending.result?.assets[0]?.id;
  await post(
    'books.assetRegister',
    { id: sawId, name: 'Panel saw', effectiveLifeYears: 8, method: 'diminishing_value' },
    'Register the pending saw: active from its bill date',
  );
  await post(
    'books.assetRegister',
    { id: sawId, name: 'Panel saw', effectiveLifeYears: 8, method: 'diminishing_value' },
    'An asset already registered is CONFLICT',
  );
  await post(
    'books.assetRegister',
    { id: sawId, name: 'Panel saw', effectiveLifeYears: 0, method: 'diminishing_value' },
    'Bad input names the field',
  );
  await post(
    'books.assetDepreciationRun',
    { periodEnd: monthEnd(1) },
    `Depreciation to ${monthEnd(1)}: the saw catches up from its bill date`,
  );
  await post('books.assetDepreciationRun', { periodEnd: monthEnd(1) }, 'The same month again: a no-op returning the first run');
  const register = await post('books.assets', {}, 'The register today: book values equal 1500 − 1510');
  const vanId = register.result?.assets.find((a) => a.name === 'Delivery van')?.id;
  await post(
    'books.assetDispose',
    { id: vanId, date: today(), proceedsCents: 3_850_000 },
    'Sell the van (taxable: GST 1/11 of the proceeds); depreciation to the date first',
  );
  await post('books.assets', { asOf: today(), status: 'disposed' }, 'Disposed assets with their disposal details');
  const latheId = register.result?.assets.find((a) => a.name === 'Lathe')?.id;
  const sale = await post(
    'books.invoiceDraft',
    {
      payeeName: 'Bay Joinery',
      description: 'Sale of the lathe',
      totalCents: 1_320_000,
      dueDays: 14,
      lines: [{ description: 'Used lathe', amountCents: 1_320_000, assetId: latheId }],
    },
    'Sell an asset by invoice: a line names it (assetId); its account is 4300',
  );
  await post(
    'books.invoiceDraft',
    {
      payeeName: 'Bay Joinery',
      description: 'Van',
      totalCents: 100_000,
      dueDays: 14,
      lines: [{ description: 'Van', amountCents: 100_000, assetId: vanId }],
    },
    'An asset already disposed of: CONFLICT naming the line',
  );
  await post(
    'books.invoiceSend',
    { id: sale.result?.id },
    'Sending it disposes of the lathe on the issue date: proceeds on 1100 (GST at 1A), cost and depreciation off 1500/1510, the gain or loss',
  );
  const year = incomeYear(today());
  await post(
    'books.reports',
    { type: 'depreciation_schedule', from: `${year}-07-01`, to: `${year + 1}-06-30` },
    "The income year's book depreciation beside the tax deduction, and the small business pool",
  );
  await post(
    'books.assetRegister',
    { id: 'ast_missing', name: 'Panel saw', effectiveLifeYears: 8, method: 'diminishing_value', taxTreatment: 'instant_write_off' },
    'taxTreatment is given when an asset is registered (here: NOT_FOUND)',
  );

  // A business joining with its fixed assets: each carried in at cost with the depreciation its
  // old books took, registered, and depreciated on from the day after the conversion.
  const joining = await createOrg(db, { name: 'Harbour Earthmoving', slug: 'harbour-earthmoving', decisionRights: true });
  await post(
    'books.openingBalances',
    {
      conversionDate: monthEnd(4),
      accounts: [
        { accountCode: '1000', debitCents: 500_000 },
        { accountCode: '3000', creditCents: 1_300_000 },
      ],
      assets: [
        {
          name: 'Ute',
          acquiredDate: '2023-07-01',
          costCents: 1_200_000,
          accumulatedDepreciationCents: 400_000,
          effectiveLifeYears: 8,
          method: 'diminishing_value',
          taxTreatment: 'same_as_book',
        },
      ],
    },
    'A conversion with a fixed asset: Dr 1500 at cost, Cr 1510 at its accumulated depreciation, in the one journal',
    joining.keys.agent,
  );
  await post(
    'books.assetDepreciationRun',
    { periodEnd: monthEnd(3) },
    'The first run depreciates the ute from its written-down value of $8,000',
    joining.keys.agent,
  );
}
