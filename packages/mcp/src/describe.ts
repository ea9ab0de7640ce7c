import {
  approval,
  limits,
  methods,
  proofFields,
  reads,
  readSpecs,
  type MethodKind,
  type MethodSpec,
  type ReadSpec,
} from '@finance-desk/protocol';
import { toolName } from './names.js';

/**
 * MCP tool annotations (hints for the model and the host's confirmation UI). No title, here or on
 * the Tool: it was the name re-spelt (`books_invoiceDraft` as "Books: invoice draft"), and a host
 * shows the name when there is none.
 */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/**
 * The MCP specification's defaults for absent hints: a tool is taken to write, destructively, not
 * idempotently, in an open world. Only hints that differ are sent (a read's destructive and
 * idempotent hints mean nothing, by the specification), so the list carries each fact once.
 */
export const HINT_DEFAULTS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

export function sentHints(hints: ToolAnnotations): Partial<ToolAnnotations> {
  const out: Partial<Record<keyof ToolAnnotations, boolean>> = {};
  for (const key of Object.keys(HINT_DEFAULTS) as (keyof ToolAnnotations)[]) {
    if (hints.readOnlyHint && (key === 'destructiveHint' || key === 'idempotentHint')) continue;
    if (hints[key] !== HINT_DEFAULTS[key]) out[key] = hints[key];
  }
  return out;
}

/**
 * Hints from the method's kind (types.ts MethodKind): a write is idempotent by state and changes
 * nothing irreversible, unless its declaration says a repeat creates another record
 * (`repeat: 'creates'`); a new act records one more event every call; a signature act commits the
 * books to something a human signs for, so hosts should confirm it.
 */
const HINTS: Readonly<Record<MethodKind, Omit<ToolAnnotations, 'openWorldHint'>>> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  'new-act': { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  signature: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

/** The proof fields of a signature act's retry (fields.ts proofFields). */
export const APPROVAL_ID: keyof typeof proofFields = 'approvalId';
export const SIGNATURE_TOKEN: keyof typeof proofFields = 'signatureToken';

export const APPROVAL_REQUEST_TOOL = toolName(approval.request.name);
export const APPROVAL_WAIT_TOOL = toolName(readSpecs.approvalWait.name);

/** Whether the same call again (with a new idempotency key) acts again: a new act, a signature act, or a write that creates. */
export function actsAgain(spec: MethodSpec): boolean {
  return spec.kind === 'new-act' || spec.kind === 'signature' || (spec.kind === 'write' && spec.repeat === 'creates');
}

export function methodAnnotations(spec: MethodSpec): ToolAnnotations {
  return { ...HINTS[spec.kind], idempotentHint: !actsAgain(spec), openWorldHint: spec.reachesOut === true };
}

export function readAnnotations(_spec: ReadSpec): ToolAnnotations {
  return { ...HINTS.read, openWorldHint: false };
}

/**
 * Cross-references in declaration texts name API methods and reads (`books.lineRecode`,
 * `org/profile`, or a books method by its own name, `billApprove`); a model only knows tools, so
 * each is written as its tool name. A name without `.` or `/` (`events`, `policy`) is an ordinary
 * word too and is left alone.
 */
let crossRefs: { pattern: RegExp; to: ReadonlyMap<string, string> } | undefined;

function crossReferences(): { pattern: RegExp; to: ReadonlyMap<string, string> } {
  if (crossRefs) return crossRefs;
  const to = new Map<string, string>();
  const declared = [...methods.map((m) => m.name), ...reads.map((r) => r.name)].filter((n) => /[./]/.test(n));
  for (const name of declared) to.set(name, toolName(name));
  // A method's own name alone (`invoiceDraft`), when it is camelCase and no other family has it.
  const bare = new Map<string, string[]>();
  for (const name of declared) {
    const own = name.slice(name.search(/[./]/) + 1);
    if (/^[a-z]+[A-Z][A-Za-z0-9]*$/.test(own)) bare.set(own, [...(bare.get(own) ?? []), name]);
  }
  for (const [own, names] of bare) if (names.length === 1 && names[0] !== undefined) to.set(own, toolName(names[0]));
  const escaped = [...to.keys()].sort((a, b) => b.length - a.length).map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  crossRefs = { pattern: new RegExp(`(?<![\\w./])(?:${escaped.join('|')})(?![\\w/]|\\.\\w)`, 'g'), to };
  return crossRefs;
}

/** `text` with every declared method or read it names written as the tool's name. */
export function toolReferences(text: string): string {
  const { pattern, to } = crossReferences();
  return text.replace(pattern, (name) => to.get(name) ?? name);
}

/** What the model reads first: the declaration's brief, or its summary until it has one. */
function lead(spec: MethodSpec | ReadSpec): string {
  return toolReferences((spec.brief ?? spec.summary).trim());
}

/**
 * How a write repeats, said once, in its idempotencyKey's description (where a model looks when it
 * retries) rather than again in the tool's description: the key is the thing to reuse, and the
 * words beside it say what happens without it. Every text starts "Reuse on retry"; INSTRUCTIONS
 * explain the three endings once.
 */
export function idempotencyKeyNote(spec: MethodSpec): string {
  if (!actsAgain(spec)) return 'Reuse on retry (repeat-safe)';
  return spec.kind === 'write' ? 'Reuse on retry, else creates again' : 'Reuse on retry, else acts again';
}

/**
 * The approval loop in a signature act's description, as a pointer: a hold answers with `next`,
 * the calls that complete it with their arguments ready, and INSTRUCTIONS teach the loop in full;
 * the description says only that a human is needed and where the steps come from.
 */
export const APPROVAL_NOTE = 'Needs a human: on "approval_required", make the calls its next lists.';

export function methodDescription(spec: MethodSpec): string {
  return spec.kind === 'signature' ? `${lead(spec)}\n\n${APPROVAL_NOTE}` : lead(spec);
}

export function readDescription(spec: ReadSpec): string {
  const wait =
    spec.name === readSpecs.approvalWait.name
      ? ` Step 2 of the approval loop: wait up to ${limits.approvalWaitMsMax} ms (timeoutMs); call again while "pending"; once "approved", retry the held tool with ${APPROVAL_ID}.`
      : '';
  // A read says so in its annotations (readOnlyHint) and its own first words ("List…", "One…").
  return `${lead(spec)}${wait}`;
}

/**
 * Server-level instructions an MCP host shows the model once: the approval loop in full (each
 * signature tool points to it, and each hold carries its steps in next), idempotency keys, and how
 * errors read.
 */
export const INSTRUCTIONS = [
  "Finance Desk runs a small business's books (Australian GST, BAS, PAYG, payroll); every tool is one API method or read. Money is integer cents.",
  '',
  'The approval loop. Tools whose description says "Needs a human" (marked destructive) are signature acts: a human approves them before they run. When approval is needed, the first call does nothing and returns a hold: status "approval_required" with approval {actionClass, payloadHash, subject}, subjectId, the server\'s message, and next (the calls to make, arguments ready). Then:',
  `1. call ${APPROVAL_REQUEST_TOOL} with the hold's approval fields (actionClass, payloadHash, subject {kind, subjectId}); its result has approvalId;`,
  `2. call ${APPROVAL_WAIT_TOOL} with {approvalId, timeoutMs: ${limits.approvalWaitMsMax}} and repeat while status is "pending" (a human decides in the console or CLI); "denied" or "expired" means the act cannot complete;`,
  `3. once "approved", call the held tool again with the same params plus ${APPROVAL_ID}, and without the first call's idempotencyKey (this is a new call). The result carries the ledgerId. A proof is single-use.`,
  'A call refused with GOVERNANCE_NOT_READY and error.approval (a bill the bill-approval rule holds) follows the same three steps.',
  '',
  'Retries. Every tool that writes takes an optional idempotencyKey: send a fresh value with each new call, and the same value when you retry that call after a timeout or an unclear answer; the server then answers the first result instead of acting twice. Its description says what a repeat without it does: "repeat-safe" (the same call again changes nothing more), "else creates again" (a second record, such as a second invoice draft) or "else acts again" (a new act or a signature act: another event, email or lodgement).',
  '',
  'Errors. An error result carries error.code, error.message and, when one parameter is at fault, error.field.',
].join('\n');
