/**
 * Canonical JSON (docs/protocol.md, section 1): object keys sorted recursively by UTF-16 code unit order,
 * array order kept, no whitespace. Only the values a ledger payload may hold are accepted — strings, booleans,
 * null, safe integers, arrays and plain objects — so that every language reproduces the bytes.
 */

export type JsonValue = string | boolean | null | number | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export class CanonicalJsonError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path || '<root>'}: ${reason}`);
    this.name = 'CanonicalJsonError';
  }
}

function compareKeys(a: string, b: string): number {
  // Code-unit order, not locale order: the same in every language's default string sort.
  return a < b ? -1 : a > b ? 1 : 0;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A lone surrogate has no UTF-8 form, so other languages could not reproduce the bytes. */
function checkedString(value: string, path: string): string {
  if (LONE_SURROGATE.test(value)) throw new CanonicalJsonError(path, 'strings must be valid Unicode (lone surrogate)');
  return value;
}

function write(value: unknown, path: string, out: string[]): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(checkedString(value, path)));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isSafeInteger(value)) {
        throw new CanonicalJsonError(path, 'numbers must be safe integers (money is cents)');
      }
      out.push(String(value));
      return;
    case 'object':
      break;
    default:
      throw new CanonicalJsonError(path, `unsupported type ${typeof value}`);
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) throw new CanonicalJsonError(`${path}[${i}]`, 'sparse arrays are not allowed');
      if (i > 0) out.push(',');
      write(value[i], `${path}[${i}]`, out);
    }
    out.push(']');
    return;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    throw new CanonicalJsonError(path, 'only plain objects are allowed');
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort(compareKeys);
  out.push('{');
  keys.forEach((key, i) => {
    if (i > 0) out.push(',');
    out.push(JSON.stringify(checkedString(key, path)), ':');
    write(record[key], path ? `${path}.${key}` : key, out);
  });
  out.push('}');
}

/**
 * Fast path: the same output as `write`, without building a path string for every key. When it
 * meets a value it cannot serialise it throws `Retry`, and the path-tracking writer runs to
 * produce the error that names the offending field.
 */
class Retry extends Error {}

function fast(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new Retry();
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isSafeInteger(value)) throw new Retry();
      return String(value);
    case 'object':
      break;
    default:
      throw new Retry();
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) throw new Retry();
      out += (i > 0 ? ',' : '') + fast(value[i]);
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) throw new Retry();
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort(compareKeys);
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    if (LONE_SURROGATE.test(key)) throw new Retry();
    out += `${first ? '' : ','}${JSON.stringify(key)}:${fast(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** Serialise a value canonically. Keys whose value is `undefined` are omitted, as JSON does. */
export function canonicalJson(value: unknown): string {
  try {
    return fast(value);
  } catch (error) {
    if (!(error instanceof Retry)) throw error;
    const out: string[] = [];
    write(value, '', out);
    throw new Error('canonicalJson: fast path refused a value the checked path accepted', { cause: error });
  }
}
