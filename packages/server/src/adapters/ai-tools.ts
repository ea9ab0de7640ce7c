import { bankAccounts, people, validate, type MethodSpec } from '@finance-desk/protocol';
import { z } from 'zod';
import type { MethodBinding, ReadContext } from '../binding.js';

/**
 * The tools a model may call: the books read methods only (kind `read`, scope
 * books.read), with the JSON schema of their declared params. A call is validated like an HTTP
 * call and run by the method's own read binding with the caller's principal, so scopes and
 * organisation isolation apply exactly as they do over HTTP. Nothing else is a tool.
 */
export interface ReadTool {
  /** OpenAI function names allow no dot: `books.invoices` is `books_invoices`. */
  readonly toolName: string;
  readonly method: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  run(args: unknown, ctx: ReadContext): Promise<unknown>;
}

export const toolNameOf = (method: string): string => method.replace('.', '_');

function schemaOf(spec: MethodSpec): Record<string, unknown> {
  try {
    const schema = z.toJSONSchema(spec.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete schema.$schema;
    return schema;
  } catch {
    return { type: 'object' };
  }
}

/**
 * Reads never offered to a model: people's personal data (names, pay, tax file and bank details
 * of employees) is not sent to an outside provider to answer a books question, nor the
 * business's own BSBs and account numbers (books.bankAccounts: each account's balance
 * is in books.accounts and the reports). Least privilege: the books' figures are enough for every
 * question the gateway is for.
 */
export const TOOL_EXCLUDED_METHODS: ReadonlySet<string> = new Set([people.employees.name, bankAccounts.bankAccounts.name]);

export function readTools(bindings: Iterable<MethodBinding>): ReadTool[] {
  const tools: ReadTool[] = [];
  for (const b of bindings) {
    const read = b.read;
    if (!read || b.spec.kind !== 'read' || b.spec.scope !== 'books.read' || TOOL_EXCLUDED_METHODS.has(b.spec.name)) continue;
    const spec = b.spec;
    tools.push({
      toolName: toolNameOf(spec.name),
      method: spec.name,
      description: spec.summary.slice(0, 1000),
      parameters: schemaOf(spec),
      async run(args, ctx) {
        if (!ctx.principal.scopes.includes(spec.scope)) throw new Error(`missing scope ${spec.scope} for ${spec.name}`);
        const parsed = validate(spec.params, args ?? {});
        if (!parsed.ok) throw new Error(parsed.message);
        return read(parsed.value, ctx);
      },
    });
  }
  return tools;
}
