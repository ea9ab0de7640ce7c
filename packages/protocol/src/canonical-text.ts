/**
 * Is a stored text exactly the canonical JSON the server writes? The verifier asks this of
 * every stored payload and `GET events` of every row it serves, so it runs once per row of a
 * ledger walk and must be fast.
 *
 * The definition is `canonicalJson(JSON.parse(text)) === text` (`isCanonicalJsonTextSlow`). That
 * parses into objects and re-serialises them: several times the cost of hashing the row. The
 * fast judge here is one left-to-right pass over the text's UTF-16 code units, without building
 * any value: it checks the grammar of canonical JSON (no whitespace, safe integers only, strings
 * escaped exactly as `JSON.stringify` escapes them, keys in strictly increasing code-unit order).
 *
 * It only ever PROVES a text canonical. Whenever it says no (a tampered payload, or the rare
 * shapes it does not try to judge: a key with an escape sequence, nesting deeper than
 * MAX_DEPTH), the exact definition decides. So every text rejected before is still rejected, by
 * the same code, and the fast path only has to be sound in one direction: what it accepts,
 * the definition accepts (the property tests in packages/protocol/test check both directions on
 * random and mutated texts).
 */
import { canonicalJson, type JsonValue } from './canonical-json.js';

/** Deeper texts go to the exact definition (which recurses): the scanner never judges them. */
const MAX_DEPTH = 64;

/** The largest safe integer's digits: a 16-digit number above it is not a safe integer. */
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

// The scanner's state: module-level so that the recursive helpers pass nothing but the depth.
// JavaScript runs one scan to completion before any other starts, so it is never shared.
let src = '';
let pos = 0;
/** Set by scanString: the string just scanned contained an escape sequence. */
let escaped = false;

/**
 * A string token at `pos` (an opening quote), encoded exactly as JSON.stringify encodes its
 * value: no raw control character, `"` and `\` escaped, \b \f \n \r \t in their short form,
 * other control characters as \u00xx in lower-case hex, nothing else escaped, and no lone
 * surrogate (canonicalJson refuses them: they have no UTF-8 form).
 */
function scanString(): boolean {
  // Locals in the loop, not the module's variables: this loop is most of the scan's time.
  const s = src;
  const end = s.length;
  let p = pos + 1;
  let sawEscape = false;
  let ok = false;
  while (p < end) {
    const c = s.charCodeAt(p);
    if (c === 0x22) {
      p += 1;
      ok = true;
      break;
    }
    if (c < 0x20) break;
    if (c === 0x5c) {
      sawEscape = true;
      const e = s.charCodeAt(p + 1);
      // \" \\ \b \f \n \r \t
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        p += 2;
        continue;
      }
      if (e !== 0x75 || s.charCodeAt(p + 2) !== 0x30 || s.charCodeAt(p + 3) !== 0x30) break;
      const hi = s.charCodeAt(p + 4);
      const lo = s.charCodeAt(p + 5);
      if (hi !== 0x30 && hi !== 0x31) break;
      const low = lo >= 0x30 && lo <= 0x39 ? lo - 0x30 : lo >= 0x61 && lo <= 0x66 ? lo - 0x57 : -1;
      if (low < 0) break;
      const code = (hi - 0x30) * 16 + low;
      // These five have a short form, which is what JSON.stringify writes.
      if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) break;
      p += 6;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      if (c >= 0xdc00) break;
      const d = s.charCodeAt(p + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) break;
      p += 2;
      continue;
    }
    p += 1;
  }
  pos = p;
  escaped = sawEscape;
  return ok;
}

/** An integer as String(n) writes a safe integer: no leading zero, no "-0", no fraction or exponent. */
function scanInteger(): boolean {
  const negative = src.charCodeAt(pos) === 0x2d;
  if (negative) pos += 1;
  const first = pos;
  const c = src.charCodeAt(pos);
  if (c === 0x30) {
    pos += 1;
    return !negative;
  }
  if (!(c >= 0x31 && c <= 0x39)) return false;
  pos += 1;
  for (;;) {
    const d = src.charCodeAt(pos);
    if (!(d >= 0x30 && d <= 0x39)) break;
    pos += 1;
  }
  const digits = pos - first;
  if (digits < MAX_SAFE_DIGITS.length) return true;
  // Same length: the code-unit comparison of the digits is the numeric one.
  return digits === MAX_SAFE_DIGITS.length && src.slice(first, pos) <= MAX_SAFE_DIGITS;
}

function scanWord(word: string): boolean {
  if (!src.startsWith(word, pos)) return false;
  pos += word.length;
  return true;
}

function scanValue(depth: number): boolean {
  const c = src.charCodeAt(pos);
  if (c === 0x22) return scanString();
  if (c === 0x7b) return scanObject(depth + 1);
  if (c === 0x5b) return scanArray(depth + 1);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return scanInteger();
  if (c === 0x74) return scanWord('true');
  if (c === 0x66) return scanWord('false');
  if (c === 0x6e) return scanWord('null');
  return false;
}

/** Whether src[aStart, aEnd) is before src[bStart, bEnd) in code-unit order (as `<` on strings). */
function keyBefore(aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  const s = src;
  const aLength = aEnd - aStart;
  const bLength = bEnd - bStart;
  const common = aLength < bLength ? aLength : bLength;
  for (let i = 0; i < common; i += 1) {
    const a = s.charCodeAt(aStart + i);
    const b = s.charCodeAt(bStart + i);
    if (a !== b) return a < b;
  }
  return aLength < bLength;
}

function scanArray(depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  pos += 1;
  if (src.charCodeAt(pos) === 0x5d) {
    pos += 1;
    return true;
  }
  for (;;) {
    if (!scanValue(depth)) return false;
    const c = src.charCodeAt(pos);
    pos += 1;
    if (c === 0x2c) continue;
    return c === 0x5d;
  }
}

function scanObject(depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  pos += 1;
  if (src.charCodeAt(pos) === 0x7d) {
    pos += 1;
    return true;
  }
  // The previous key's span in the text. Keys here hold no escape, so their text is their
  // value, and they are compared in place (no string per key).
  let prevStart = -1;
  let prevEnd = -1;
  for (;;) {
    if (src.charCodeAt(pos) !== 0x22) return false;
    const start = pos + 1;
    // A key with an escape would have to be decoded to compare it: left to the definition.
    if (!scanString() || escaped) return false;
    const end = pos - 1;
    // Keys must be strictly increasing in code-unit order: compareKeys' order, no duplicates.
    if (prevStart >= 0 && !keyBefore(prevStart, prevEnd, start, end)) return false;
    prevStart = start;
    prevEnd = end;
    if (src.charCodeAt(pos) !== 0x3a) return false;
    pos += 1;
    if (!scanValue(depth)) return false;
    const c = src.charCodeAt(pos);
    pos += 1;
    if (c === 0x2c) continue;
    return c === 0x7d;
  }
}

/**
 * True only when `text` is certainly canonical JSON (one pass, no parse). False means "not
 * proven": the caller must ask the definition. Exported for the property tests.
 */
export function provesCanonicalJsonText(text: string): boolean {
  src = text;
  pos = 0;
  try {
    return text.length > 0 && scanValue(0) && pos === text.length;
  } finally {
    src = '';
  }
}

/** The definition: the text is what canonicalJson writes for the value it parses to. */
export function isCanonicalJsonTextSlow(text: string): boolean {
  try {
    return canonicalJson(JSON.parse(text) as JsonValue) === text;
  } catch {
    return false;
  }
}

/** Whether `text` is exactly the canonical JSON of some value: what the server stores. */
export function isCanonicalJsonText(text: string): boolean {
  return provesCanonicalJsonText(text) || isCanonicalJsonTextSlow(text);
}
