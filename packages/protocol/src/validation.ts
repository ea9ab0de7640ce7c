import { z } from 'zod';
import { textIssues, type TextIssue } from './text-rules.js';

/**
 * Turn zod issues into the contract's validation message: every problem, each naming its field,
 * joined as `field: problem; field: problem`.
 */
type Issue = z.core.$ZodIssue;

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

/** zod's own default wording; anything else is a message a schema chose (fields.ts). */
const DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized)/;

function describe(issue: Issue): string {
  if (issue.code === 'invalid_type') {
    const withInput = issue as { input?: unknown };
    const missing = 'input' in withInput ? withInput.input === undefined : /received undefined$/.test(issue.message);
    if (missing) return 'is required';
  }
  if (!DEFAULT_MESSAGE.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(issue.expected === 'int' ? 'integer' : issue.expected)}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') {
        return min <= 1 ? 'must not be empty' : `must be at least ${min} characters`;
      }
      if (issue.origin === 'array') return `must have at least ${min} items`;
      return issue.inclusive ? `must be at least ${min}` : `must be greater than ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters`;
      if (issue.origin === 'array') return `must have at most ${max} items`;
      return issue.inclusive ? `must be at most ${max}` : `must be less than ${max}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

/**
 * Parse with zod and report every problem in that form. `reportInput` lets a missing field be
 * told from a wrong one; the input itself is never echoed into a message. Every string in the
 * input, at any depth and object keys too, is checked against the text rules first
 * (text-rules.ts), so no schema can forget them: one bad string fails the whole input.
 */
export function validate<S extends z.ZodType>(schema: S, data: unknown): { ok: true; value: z.infer<S> } | { ok: false; message: string } {
  const bad = textIssues(data);
  const parsed = schema.safeParse(data, { reportInput: true });
  if (parsed.success && bad.length === 0) return { ok: true, value: parsed.data };
  return { ok: false, message: formatIssues([...(parsed.success ? [] : parsed.error.issues), ...bad]) };
}

export function formatIssues(issues: readonly (Issue | TextIssue)[]): string {
  const parts: string[] = [];
  for (const issue of issues) {
    if (!('code' in issue)) {
      parts.push(`${pathOf(issue.path) || 'params'}: ${issue.message}`);
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        parts.push(`${pathOf([...issue.path, key])}: unknown field`);
      }
      continue;
    }
    const field = pathOf(issue.path) || 'params';
    parts.push(`${field}: ${describe(issue)}`);
  }
  // Two checks that say the same thing of one field are one problem, named once.
  return [...new Set(parts)].join('; ');
}
