/**
 * Tool names. MCP clients accept only `^[a-zA-Z0-9_-]{1,64}$`, so a method `books.invoiceDraft`
 * becomes `books_invoiceDraft` and a read `org/profile` becomes `org_profile`. Declared names never
 * contain `_` (METHOD_NAME, the read names), so the mapping is reversible through the table built
 * at start, which refuses two declarations landing on one tool name.
 */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function toolName(declared: string): string {
  return declared.replace(/[./]/g, '_');
}

/** Name → entry table; throws at start on an invalid or colliding tool name (a declaration bug). */
export function toolTable<T>(entries: readonly (readonly [string, T])[]): ReadonlyMap<string, T> {
  const table = new Map<string, T>();
  const from = new Map<string, string>();
  for (const [declared, entry] of entries) {
    const name = toolName(declared);
    if (!TOOL_NAME.test(name)) throw new Error(`declaration ${declared} maps to an invalid MCP tool name ${name}`);
    const other = from.get(name);
    if (other !== undefined) throw new Error(`declarations ${other} and ${declared} both map to MCP tool ${name}`);
    from.set(name, declared);
    table.set(name, entry);
  }
  return table;
}
