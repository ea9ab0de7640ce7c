/**
 * Agent-supplied text inside a server-written summary is always quoted as a JSON string, so it can
 * never pass for the server's own words: its quotes and control characters are escaped.
 */
export function quoted(text: string): string {
  return JSON.stringify(text);
}
