// Contacts scenario for docs/methods.md: customers and suppliers as records.
// A contact created before its first invoice (ABN checked), an invoice that finds it by another
// spelling of its name, a bill that creates a new supplier in its own act, an invoice by
// contactId, a name that is not the contact's, an update and its no-op, the list with balances,
// and the documents of one contact. 51 824 753 556 is the ATO's sample ABN.
export async function run({ post, get }) {
  const c = await post(
    'books.contactCreate',
    { name: 'Café Nord', kind: 'customer', email: 'accounts@cafe-nord.example', abn: '51 824 753 556' },
    'A customer before its first invoice (ABN checked, stored without spaces)',
  );
  await post('books.contactCreate', { name: 'CAFE NORD', kind: 'customer' }, 'The same name in another spelling: a no-op');
  await post(
    'books.contactCreate',
    { name: 'Bad Abn Pty Ltd', kind: 'supplier', abn: '51 824 753 557' },
    'An ABN failing its check digits: refused, naming abn',
  );
  const inv = await post(
    'books.invoiceDraft',
    { payeeName: 'cafe\u0301 nord', description: 'Pastry order', totalCents: 33_000, dueDays: 14 },
    'An invoice by another spelling finds the contact (case and accents folded)',
  );
  await post('books.invoiceSend', { id: inv.result.id }, 'Send it: what the contact owes is now its receivable');
  await post(
    'books.invoiceDraft',
    { contactId: c.result.id, description: 'Coffee beans', totalCents: 22_000, dueDays: 14 },
    "An invoice by contactId alone: the payee name is the contact's",
  );
  await post(
    'books.invoiceDraft',
    { contactId: c.result.id, payeeName: 'Cafe Sud', description: 'x', totalCents: 100, dueDays: 0 },
    "A payeeName that is not the contact's name: refused, naming payeeName",
  );
  await post(
    'books.billCapture',
    { payeeName: 'Juniper Roasters', description: 'Green beans', totalCents: 48_400, dueDays: 30 },
    'A bill from a new supplier creates its contact in the same act (contactId in the result and the event)',
  );
  await post(
    'books.contactUpdate',
    { id: c.result.id, name: 'Café Nord Pty Ltd', email: 'ap@cafe-nord.example' },
    "Change the name's spelling and the email (never bank details: they come from approved bills)",
  );
  await post(
    'books.contactUpdate',
    { id: c.result.id, email: 'ap@cafe-nord.example' },
    "Nothing differs: a no-op with the contact's ledgerId",
  );
  await get('contacts.list', { kind: 'customer', q: 'CAFÉ' }, 'Customers matching a name fragment, with balances');
  await get('contacts.list', { limit: '2' }, 'Every contact, a page of 2 (nextCursor pages on)');
  await post('books.invoices', { contactId: c.result.id }, 'The invoices of one contact');
  await post('books.bills', { contactId: inv.result.contactId }, 'The bills of one contact (none: it is a customer)');
}
