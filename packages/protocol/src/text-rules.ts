/**
 * Text rules: every string the server receives is well-formed
 * Unicode with no NUL, no C0/C1 control character and no bidi override or isolate. Tab and line
 * breaks are allowed only in multi-line fields (descriptions, reasons, notes, file contents).
 *
 * Why each class is refused: a lone surrogate cannot be stored as UTF-8 (PostgreSQL refuses it,
 * SQLite stores U+FFFD, so the ledger hashes differ from the rows); PostgreSQL refuses NUL in
 * TEXT; control characters and bidi overrides (U+202A–U+202E, U+2066–U+2069) let agent text
 * rearrange or hide what the human approver reads (`$48,000.00` shown reversed).
 */

export interface TextRuleOptions {
  /** Allow tab, line feed and carriage return (a CRLF from a browser textarea). */
  readonly multiline: boolean;
}

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/** The problem with one UTF-16 code unit (a paired surrogate never gets here), or null. */
function codeProblem(code: number, options: TextRuleOptions): string | null {
  if (code >= 0xd800 && code <= 0xdfff) return 'must be well-formed Unicode (it has a lone surrogate)';
  if (code === 0) return 'must not contain a NUL character';
  if (code === 0x09 || code === 0x0a || code === 0x0d) {
    return options.multiline ? null : 'must be a single line (no tab or line break)';
  }
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `must not contain control character ${hex(code)}`;
  if (isBidiControl(code)) return `must not contain bidi override or isolate character ${hex(code)}`;
  return null;
}

/**
 * The first problem of `s` under the text rules, as a message to follow a field name
 * ("payeeName: must not contain a NUL character"), or null when the text is acceptable.
 * The offending character is named by code point, never echoed.
 */
export function textProblem(s: string, options: TextRuleOptions): string | null {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    // Fast path: printable ASCII and most of the BMP are fine.
    if (code >= 0x20 && code < 0x7f) continue;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    const problem = codeProblem(code, options);
    if (problem) return problem;
  }
  return null;
}

export interface TextIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** At most this many text problems are reported for one input: the message must stay short. */
const ISSUES_MAX = 20;

/**
 * Every string anywhere in `data` (values at any depth and object keys) checked with the
 * multi-line rules, the floor that no schema can forget; single-line fields refuse tab and line
 * breaks in their own builder (methods/fields.ts). Iterative, so deep nesting cannot overflow
 * the stack. A bad key is reported on its parent object, so the key itself is never echoed.
 */
export function textIssues(data: unknown): TextIssue[] {
  const issues: TextIssue[] = [];
  // Each entry links to its parent, so a path is built only for a problem (no copy per level).
  const stack: Node[] = [{ value: data, key: null, parent: null }];
  for (let node = stack.pop(); node && issues.length < ISSUES_MAX; node = stack.pop()) {
    const value = node.value;
    if (typeof value === 'string') {
      const problem = textProblem(value, MULTILINE);
      if (problem) issues.push({ path: pathOf(node), message: problem });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: node });
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value).reverse()) {
        const problem = textProblem(key, SINGLE_LINE);
        if (problem) issues.push({ path: pathOf(node), message: `a field name ${problem}` });
        else stack.push({ value: (value as Record<string, unknown>)[key], key, parent: node });
      }
    }
  }
  return issues;
}

interface Node {
  readonly value: unknown;
  readonly key: string | number | null;
  readonly parent: Node | null;
}

const MULTILINE: TextRuleOptions = { multiline: true };
const SINGLE_LINE: TextRuleOptions = { multiline: false };

function pathOf(node: Node): (string | number)[] {
  const path: (string | number)[] = [];
  for (let n: Node | null = node; n && n.key !== null; n = n.parent) path.push(n.key);
  return path.reverse();
}
