/**
 * The one normalisation behind every case-insensitive filter: compatibility
 * decomposition (NFKD), combining marks removed, lower case, runs of whitespace as one space.
 * SQL `LOWER` folds only ASCII on SQLite (`CAFÉ` stayed `CAFÉ`) and folds by locale on
 * PostgreSQL, so the key is computed here, stored with each row, and the query is normalised
 * the same way: `café`, `CAFÉ`, `Cafe` and `cafe\u0301` all have the key `cafe` on both engines.
 */
export function searchKey(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}
