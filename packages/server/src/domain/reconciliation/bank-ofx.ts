import {
  ParseError,
  forbiddenCodePoint,
  line,
  overCap,
  parseCompactDate,
  parseMoney,
  type ParsedLine,
  type ParsedStatement,
} from './bank-text.js';

/**
 * OFX statements, both syntaxes: 1.x is SGML after a `KEY:VALUE` header, with leaf elements left
 * unclosed (`<TRNAMT>-10.00` then a newline or the next tag); 2.x is XML with every element
 * closed. Aggregates such as STMTTRN are closed in both, so one reader serves both: within each
 * `<STMTTRN>…</STMTTRN>` a leaf's value runs up to the next `<` or line end.
 *
 * One forward scan, no regex over the rest of the input and no rescans (a lazy
 * `<STMTTRN>[\s\S]*?</STMTTRN>` over unclosed blocks and a line count from the file start per
 * block made a 1 MB body cost 30–40 s). Every character is looked at a bounded number of times.
 */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** Bounded quantifiers: a reference is at most a dozen characters, whatever follows it. */
const REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,8})|#([0-9]{1,10})|([a-zA-Z]{2,4}));/y;

function codePointProblem(cp: number): string | null {
  if (cp > 0x10ffff) return 'is beyond U+10FFFF';
  if (cp >= 0xd800 && cp <= 0xdfff) return 'is a surrogate, not a character';
  if (forbiddenCodePoint(cp)) return 'is a control or bidi-override character, not allowed in text';
  return null;
}

/**
 * Decode XML entities and character references; a bare `&` (SGML writes `M&J`) is left as it is.
 * A `&#…` that is malformed or names no allowed character is refused naming the field: it used to
 * reach String.fromCodePoint and throw a RangeError (a 500).
 */
function decodeText(s: string, field: string, at: number): string {
  let out = '';
  let from = 0;
  for (let i = s.indexOf('&'); i >= 0; i = s.indexOf('&', i + 1)) {
    REFERENCE.lastIndex = i;
    const m = REFERENCE.exec(s);
    if (!m) {
      const head = s.slice(i, i + 12);
      const semi = head.indexOf(';');
      const shown = semi < 0 ? head : head.slice(0, semi + 1);
      if (s.startsWith('&#', i)) throw new ParseError(at, `${field}: malformed character reference "${shown}"`);
      continue;
    }
    let text: string | undefined;
    if (m[3] !== undefined) text = ENTITIES[m[3]];
    else {
      const cp = m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2]);
      const problem = codePointProblem(cp);
      if (problem !== null) throw new ParseError(at, `${field}: character reference "${m[0]}" ${problem}`);
      text = String.fromCodePoint(cp);
    }
    if (text === undefined) continue;
    out += s.slice(from, i) + text;
    from = i + m[0].length;
  }
  return out + s.slice(from);
}

/** The first ~400 characters after a BOM and leading whitespace, found without copying the file. */
function isOfx(content: string): boolean {
  let i = content.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < content.length && /\s/.test(content[i] ?? '')) i += 1;
  const head = content.slice(i, i + 400);
  return /^OFXHEADER:\s*1\d\d/.test(head) || /<\?OFX\s/i.test(head) || /^<OFX>/i.test(head);
}

interface Leaf {
  readonly value: string;
  readonly line: number;
}

interface Txn {
  readonly start: number;
  readonly leaves: Map<string, Leaf>;
}

function finish(t: Txn): ParsedLine {
  const posted = t.leaves.get('DTPOSTED');
  const amount = t.leaves.get('TRNAMT');
  if (posted === undefined) throw new ParseError(t.start, 'STMTTRN has no DTPOSTED');
  if (amount === undefined) throw new ParseError(t.start, 'STMTTRN has no TRNAMT');
  // NAME is what the bank shows; MEMO is extra detail, used only when there is no NAME.
  const nameLeaf = t.leaves.get('NAME');
  const shown = nameLeaf ?? t.leaves.get('MEMO');
  const name = shown ? decodeText(shown.value, nameLeaf ? 'NAME' : 'MEMO', shown.line) : '';
  return line(
    parseCompactDate(posted.value, posted.line),
    parseMoney(amount.value, amount.line, 'TRNAMT'),
    name,
    t.leaves.get('FITID')?.value,
  );
}

const isNameChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46;

/** A tag at `i` (`<NAME>` or `</NAME>`): its upper-cased name and where it ends, else null. */
function tagAt(s: string, i: number): { name: string; closing: boolean; end: number } | null {
  const closing = s.charCodeAt(i + 1) === 47;
  const from = i + (closing ? 2 : 1);
  let j = from;
  while (j < s.length && isNameChar(s.charCodeAt(j))) j += 1;
  if (j === from || s.charCodeAt(j) !== 62) return null;
  return { name: s.slice(from, j).toUpperCase(), closing, end: j + 1 };
}

/** End of a leaf's value: the next `<`, CR or LF. */
function valueEnd(s: string, i: number): number {
  let j = i;
  for (; j < s.length; j += 1) {
    const c = s.charCodeAt(j);
    if (c === 60 || c === 10 || c === 13) break;
  }
  return j;
}

export function parseOfx(content: string, maxLines = Number.POSITIVE_INFINITY): ParsedStatement {
  if (!isOfx(content)) throw new ParseError(1, 'not an OFX file (no OFXHEADER or <?OFX …?> header)');
  const lines: ParsedLine[] = [];
  const sourceLines: number[] = [];
  let txn: Txn | null = null;
  let sawList = false;
  let lineNo = 1;
  for (let i = 0; i < content.length;) {
    const c = content.charCodeAt(i);
    if (c === 10) lineNo += 1;
    const tag = c === 60 ? tagAt(content, i) : null;
    if (tag === null) {
      i += 1;
      continue;
    }
    i = tag.end;
    if (tag.name === 'BANKTRANLIST') sawList = true;
    if (tag.name === 'STMTTRN' && tag.closing) {
      if (txn !== null) {
        lines.push(finish(txn));
        sourceLines.push(txn.start);
      }
      txn = null;
    } else if (tag.name === 'STMTTRN') {
      if (txn !== null) throw new ParseError(txn.start, 'STMTTRN is not closed before the next STMTTRN');
      if (lines.length >= maxLines) throw overCap(lineNo, maxLines);
      txn = { start: lineNo, leaves: new Map() };
    } else if (txn !== null && !tag.closing) {
      const end = valueEnd(content, i);
      if (!txn.leaves.has(tag.name)) txn.leaves.set(tag.name, { value: content.slice(i, end).trim(), line: lineNo });
      i = end;
    }
  }
  if (txn !== null) throw new ParseError(txn.start, 'STMTTRN is not closed by </STMTTRN>');
  if (lines.length === 0 && !sawList) throw new ParseError(1, 'the OFX file has no BANKTRANLIST');
  return { lines, sourceLines };
}
