// Asking the books for docs/methods.md: books.ask with the built-in
// grounded answerer over the books the earlier scenarios made, then GET cost.rollup summing the
// audit of those calls. Every answer is analysis only; citations are ledger ids of real events.
export async function run({ post, get }) {
  await post(
    'books.ask',
    { question: 'Who owes us money, and how much?' },
    'Who owes us: aged receivables, each invoice cited by its ledger id',
  );
  await post(
    'books.ask',
    { question: "What's our cash position?" },
    'Cash position: the bank account balance, the latest bank postings cited',
  );
  await post('books.ask', { question: "What's due this week?" }, 'Invoices and approved bills due within 7 days of asOf');
  await post(
    'books.ask',
    { question: 'How much GST for this quarter, and is the BAS lodged?' },
    'GST for a quarter, with the BAS status (a held or queued BAS is never called lodged)',
  );
  await post('books.ask', { question: 'What was our profit this financial year?' }, 'Profit for a period');
  await post('books.ask', { question: 'Who are our biggest suppliers?' }, 'Biggest suppliers by approved bills');
  await post('books.ask', { question: 'What is waiting for approval?' }, 'Pending approvals and held acts');
  await post(
    'books.ask',
    { question: 'What will the weather be tomorrow?' },
    'A question the books cannot answer: grounded false, with what can be asked',
  );
  await post('books.ask', { question: '' }, 'An empty question: BAD_REQUEST naming question');
  await get('cost.rollup', {}, 'AI gateway spend for the last 30 days by day, actor and model (the grounded answerer costs 0)');
  await get('cost.rollup', { from: '2025-01-01', to: '2026-06-30' }, 'A range over 366 days: BAD_REQUEST naming to');
}
