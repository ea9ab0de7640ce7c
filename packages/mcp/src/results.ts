import { isHold, limits, type ApprovalRef, type ErrorFrame, type Frame } from '@finance-desk/protocol';
import { APPROVAL_ID, APPROVAL_REQUEST_TOOL, APPROVAL_WAIT_TOOL } from './describe.js';
import { IDEMPOTENCY_KEY_ARG } from './schemas.js';

/** The MCP CallTool result this server returns (the SDK's CallToolResult, structurally). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The next tool calls of the approval loop, ready to send: what a model acts on after a hold. */
export interface NextStep {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly then: readonly { readonly tool: string; readonly arguments: Record<string, unknown>; readonly note: string }[];
}

const APPROVAL_ID_PLACEHOLDER = `<approvalId from ${APPROVAL_REQUEST_TOOL}>`;

export function nextSteps(approval: ApprovalRef, tool: string, params: unknown): NextStep {
  // The retry with the proof is a new call: the first call's idempotency key would replay its hold.
  const { [IDEMPOTENCY_KEY_ARG]: _key, ...original } =
    typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  void _key;
  return {
    tool: APPROVAL_REQUEST_TOOL,
    arguments: {
      actionClass: approval.actionClass,
      payloadHash: approval.payloadHash,
      subject: { kind: approval.subject.kind, subjectId: approval.subject.subjectId },
    },
    then: [
      {
        tool: APPROVAL_WAIT_TOOL,
        arguments: { approvalId: APPROVAL_ID_PLACEHOLDER, timeoutMs: limits.approvalWaitMsMax },
        note: 'repeat while status is "pending"; "denied" or "expired" ends the loop',
      },
      {
        tool,
        arguments: { ...original, [APPROVAL_ID]: APPROVAL_ID_PLACEHOLDER },
        note: 'once approved: the same call with the proof; its result carries the ledgerId',
      },
    ],
  };
}

/** Compact JSON: the model reads every byte of a result, and indentation says nothing. */
function json(value: unknown): string {
  return JSON.stringify(value);
}

/** structuredContent must be a JSON object: a non-object payload is carried as `{ result }`. */
function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
}

function isErrorFrame(body: unknown): body is ErrorFrame {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { ok?: unknown }).ok === false &&
    typeof error?.code === 'string' &&
    typeof error.message === 'string'
  );
}

/** An error frame as a tool error: code, message, field and approval, plus `next` when a human can lift it. */
function errorResult(frame: ErrorFrame, status: number, requestId: string | null, tool: string, params: unknown): ToolResult {
  const { error } = frame;
  const structured: Record<string, unknown> = { ok: false, status, error, requestId };
  if (error.approval) structured.next = nextSteps(error.approval, tool, params);
  const field = error.field !== undefined ? ` (field ${error.field})` : '';
  return {
    content: [{ type: 'text', text: `${error.code}: ${error.message}${field}\n${json(structured)}` }],
    structuredContent: structured,
    isError: true,
  };
}

/** A POST method's frame as a tool result: ok → the result; hold → the loop's next step; error → isError. */
export function postResult(tool: string, params: unknown, res: { status: number; frame: Frame; requestId: string | null }): ToolResult {
  const { frame } = res;
  if (!frame.ok) return errorResult(frame, res.status, res.requestId, tool, params);
  if (isHold(frame.result)) {
    const hold = frame.result;
    const structured = {
      status: hold.status,
      approval: hold.approval,
      subjectId: hold.subjectId,
      message: hold.message,
      next: nextSteps(hold.approval, tool, params),
    };
    return {
      content: [
        {
          type: 'text',
          text: `Held for a human's approval. Next: call ${APPROVAL_REQUEST_TOOL} with next.arguments, then ${APPROVAL_WAIT_TOOL}, then ${tool} again with ${APPROVAL_ID}.\n${json(structured)}`,
        },
      ],
      structuredContent: structured,
    };
  }
  return { content: [{ type: 'text', text: json(frame.result) }], structuredContent: asObject(frame.result) };
}

/** A GET read's answer as a tool result: the payload, or the error frame as isError. */
export function getResult(tool: string, query: unknown, res: { status: number; body: unknown; requestId: string | null }): ToolResult {
  if (res.status < 400) return { content: [{ type: 'text', text: json(res.body) }], structuredContent: asObject(res.body) };
  if (isErrorFrame(res.body)) return errorResult(res.body, res.status, res.requestId, tool, query);
  const text = `HTTP ${res.status} from Finance Desk (request id ${res.requestId ?? 'none'})`;
  return {
    content: [{ type: 'text', text }],
    structuredContent: { ok: false, status: res.status, requestId: res.requestId },
    isError: true,
  };
}

/** A call that never reached an answer (network, abort): an error the model can read, never a crash. */
export function failureResult(tool: string, error: unknown): ToolResult {
  const message = `${tool}: Finance Desk could not be reached (${String((error as Error)?.message ?? error).slice(0, 300)})`;
  return { content: [{ type: 'text', text: message }], structuredContent: { ok: false, error: { message } }, isError: true };
}

/**
 * A tool result bounded to `bytesMax` bytes as JSON (what the response will carry): one over it is
 * replaced by an error the model can act on, so one request cannot make the server write an
 * unbounded answer. `acted`: the call was a write that already happened, which must not be retried.
 */
export function boundedResult(tool: string, result: ToolResult, bytesMax: number, acted: boolean): ToolResult {
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes <= bytesMax) return result;
  const done = acted
    ? 'the call itself completed (do not repeat it); read what it did with a read tool'
    : 'ask for less: a smaller limit, a narrower filter, or the next page by cursor';
  const message = `${tool}: the result is ${bytes} bytes, more than the ${bytesMax} one MCP response may carry; ${done}`;
  return {
    content: [{ type: 'text', text: `RESPONSE_TOO_LARGE: ${message}` }],
    structuredContent: { ok: false, error: { code: 'RESPONSE_TOO_LARGE', message } },
    isError: true,
  };
}
