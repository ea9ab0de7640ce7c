import { attachments, bankAccounts, booksReads, payroll, people, validate, type MethodSpec } from '@finance-desk/protocol';
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
 * is in books.accounts and the reports), nor the files kept with documents (books.attachment:
 * a supplier's PDF may carry anything, and its bytes are not figures). Least privilege: the books'
 * figures are enough for every question the gateway is for.
 */
export const TOOL_EXCLUDED_METHODS: ReadonlySet<string> = new Set([
  people.employees.name,
  bankAccounts.bankAccounts.name,
  payroll.stpSubmissions.name,
  attachments.attachmentRead.name,
]);

/**
 * Report types never offered to a model, for the same reason: payroll activity and leave balances
 * are per employee (names, pay, leave). The reports tool's schema omits them and a call naming one
 * is refused; wages in total stay in the profit and loss. account_transactions is offered: its
 * lines are the journals' lines, which books.journals already gives the model.
 */
export const TOOL_EXCLUDED_REPORT_TYPES: ReadonlySet<string> = new Set<booksReads.ReportType>(['payroll_activity', 'leave_balances']);

/** The reports tool's schema without the excluded types in its `type` enum. */
function withoutExcludedReports(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties as Record<string, { enum?: unknown[] }> | undefined;
  const type = props?.type;
  if (type?.enum) type.enum = type.enum.filter((t) => typeof t !== 'string' || !TOOL_EXCLUDED_REPORT_TYPES.has(t));
  return schema;
}

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
      parameters: spec.name === booksReads.reports.name ? withoutExcludedReports(schemaOf(spec)) : schemaOf(spec),
      async run(args, ctx) {
        if (!ctx.principal.scopes.includes(spec.scope)) throw new Error(`missing scope ${spec.scope} for ${spec.name}`);
        const parsed = validate(spec.params, args ?? {});
        if (!parsed.ok) throw new Error(parsed.message);
        const type = (parsed.value as { type?: unknown }).type;
        if (spec.name === booksReads.reports.name && typeof type === 'string' && TOOL_EXCLUDED_REPORT_TYPES.has(type)) {
          throw new Error(`type: ${type} is per employee and is not offered to the model`);
        }
        return read(parsed.value, ctx);
      },
    });
  }
  return tools;
}
