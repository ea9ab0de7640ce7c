import { approval, limits, proofFields, readSpecs, type MethodKind, type MethodSpec, type ReadSpec } from '@finance-desk/protocol';
import { toolName } from './names.js';

/** MCP tool annotations (hints for the model and the host's confirmation UI). */
export interface ToolAnnotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/**
 * Hints from the method's kind (types.ts MethodKind): a write is idempotent by state (D3) and
 * changes nothing irreversible; a new act records one more event every call; a signature act
 * commits the books to something a human signs for, so hosts should confirm it.
 */
const HINTS: Readonly<Record<MethodKind, Omit<ToolAnnotations, 'title' | 'openWorldHint'>>> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  write: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  'new-act': { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  signature: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

/** The proof fields of a signature act's retry (fields.ts proofFields; D6). */
export const APPROVAL_ID: keyof typeof proofFields = 'approvalId';
export const SIGNATURE_TOKEN: keyof typeof proofFields = 'signatureToken';

export const APPROVAL_REQUEST_TOOL = toolName(approval.request.name);
export const APPROVAL_WAIT_TOOL = toolName(readSpecs.approvalWait.name);

/** `books.invoiceDraft` → "Books: invoice draft"; `org/profile` → "Org: profile". */
export function titleOf(declared: string): string {
  const words = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const cut = declared.search(/[./]/);
  const family = cut < 0 ? declared : declared.slice(0, cut);
  const head = family.charAt(0).toUpperCase() + words(family.slice(1));
  return cut < 0 ? head : `${head}: ${words(declared.slice(cut + 1))}`;
}

export function methodAnnotations(spec: MethodSpec): ToolAnnotations {
  return { title: titleOf(spec.name), ...HINTS[spec.kind], openWorldHint: false };
}

export function readAnnotations(spec: ReadSpec): ToolAnnotations {
  return { title: titleOf(spec.name), ...HINTS.read, openWorldHint: false };
}

const KIND_NOTES: Readonly<Record<MethodKind, string>> = {
  read: 'Reads only; changes nothing.',
  write:
    'Writes one ledger event (its ledgerId is in the result). Idempotent by state: repeating the same call once it is done changes nothing more.',
  'new-act': 'Records a new act (one ledger event) on every call: do not repeat it to retry a success.',
  signature: '',
};

/** The approval loop, taught where the model needs it: in each signature act's description. */
function approvalLoop(spec: MethodSpec): string {
  const self = toolName(spec.name);
  return [
    `Signature act (action class ${spec.actionClass ?? ''}): a human approves it before it runs.`,
    `When approval is needed, the first call does nothing and returns a hold: status "approval_required" with approval {actionClass, payloadHash, subject}, subjectId, the server's message, and next (the tool to call and its arguments). Then:`,
    `1. call ${APPROVAL_REQUEST_TOOL} with the hold's approval fields (actionClass, payloadHash, subject {kind, subjectId}); its result has approvalId;`,
    `2. call ${APPROVAL_WAIT_TOOL} with {approvalId, timeoutMs: ${limits.approvalWaitMsMax}} and repeat while status is "pending" (a human decides in the console or CLI); "denied" or "expired" means this act cannot complete;`,
    `3. once "approved", call ${self} again with the same params plus ${APPROVAL_ID} (or ${SIGNATURE_TOKEN} from ${APPROVAL_WAIT_TOOL}'s result; never both). The result then carries the ledgerId. A proof is single-use.`,
    `If instead the call is refused with GOVERNANCE_NOT_READY and error.approval, follow the same three steps with that approval.`,
  ].join('\n');
}

export function methodDescription(spec: MethodSpec): string {
  const note = spec.kind === 'signature' ? approvalLoop(spec) : KIND_NOTES[spec.kind];
  return `${spec.summary}\n\n${note}\n(Finance Desk method ${spec.name}; needs scope ${spec.scope}. Money is integer cents.)`;
}

export function readDescription(spec: ReadSpec): string {
  const wait =
    spec.name === readSpecs.approvalWait.name
      ? `\n\nStep 2 of the approval loop: pass timeoutMs (up to ${limits.approvalWaitMsMax}) to wait for the human; call again while status is "pending". Once "approved", retry the held tool with ${APPROVAL_ID} (or this result's ${SIGNATURE_TOKEN}).`
      : '';
  return `${spec.summary}${wait}\n\n${KIND_NOTES.read}\n(Finance Desk read ${spec.name}; needs scope ${spec.scope}.)`;
}

/** Server-level instructions an MCP host may show the model once. */
export const INSTRUCTIONS = [
  "Finance Desk runs a small business's books; every tool is one API method or read. Money is integer cents.",
  'Tools marked destructive are signature acts: when a human must approve, they return status "approval_required" with a `next` field.',
  `Follow it: ${APPROVAL_REQUEST_TOOL} → ${APPROVAL_WAIT_TOOL} (until approved) → the same tool again with the same params plus ${APPROVAL_ID}.`,
  'An error result carries error.code, error.message and, when one parameter is at fault, error.field.',
].join('\n');
