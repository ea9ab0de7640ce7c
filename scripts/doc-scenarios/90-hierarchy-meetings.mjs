// Hierarchy and calendar scenario for docs/methods.md, run after every area's
// scenario so the organisation has people, keys, invoices, bills, pay runs and a BAS to show.
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(new Date());
const addDays = (date, n) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

export async function run({ get }) {
  await get('hierarchy', {}, 'People and their decision rights, agents, and who may decide each action class');
  await get('meetings.list', {}, 'The next 14 days from the organisation-local today');
  const range = { from: addDays(today(), -60), to: addDays(today(), 30) };
  const first = await get('meetings.list', { ...range, limit: '5' }, 'Sixty days back to thirty ahead, five items a page');
  if (first.nextCursor) {
    await get('meetings.list', { ...range, limit: '5', cursor: first.nextCursor }, 'The next page: the nextCursor of the previous one');
  }
  await get('meetings.list', { from: addDays(today(), -92), to: today(), kind: 'bas.due' }, 'One kind: BAS due dates of the last 92 days');
  await get('meetings.list', { from: today(), to: addDays(today(), 93) }, 'A range over 92 days: BAD_REQUEST naming to');
}
