import {
  ParseError,
  line,
  parseCompactDate,
  parseMoney,
  type ParsedLine,
  type ParsedStatement,
} from './bank-text.js';

/**
 * OFX statements, both syntaxes: 1.x is SGML after a `KEY:VALUE` header, with leaf elements left
 * unclosed (`<TRNAMT>-10.00` then a newline or the next tag); 2.x is XML with every element
 * closed. Aggregates such as STMTTRN are closed in both, so one reader serves both: take each
 * `<STMTTRN>…</STMTTRN>` block and read a leaf's value up to the next `<` or line end.
 */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** Decode XML entities; a bare `&` (SGML writes `M&J`) is left as it is. */
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-z]{2,4});/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name] ?? whole;
  });
}

function lineAt(content: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset; i += 1) if (content.charCodeAt(i) === 10) n += 1;
  return n;
}

function leaves(block: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of block.matchAll(/<([A-Za-z0-9.]+)>([^<\r\n]*)/g)) {
    const tag = (m[1] ?? '').toUpperCase();
    if (!out.has(tag)) out.set(tag, (m[2] ?? '').trim());
  }
  return out;
}

function isOfx(content: string): boolean {
  const head = content
    .replace(/^\uFEFF/, '')
    .trimStart()
    .slice(0, 400);
  return /^OFXHEADER:\s*1\d\d/.test(head) || /<\?OFX\s/i.test(head) || /^<OFX>/i.test(head);
}

export function parseOfx(content: string): ParsedStatement {
  if (!isOfx(content))
    throw new ParseError(1, 'not an OFX file (no OFXHEADER or <?OFX …?> header)');
  const lines: ParsedLine[] = [];
  const sourceLines: number[] = [];
  for (const m of content.matchAll(/<STMTTRN>([\s\S]*?)<\/STMTTRN>/gi)) {
    const at = lineAt(content, m.index);
    const f = leaves(m[1] ?? '');
    const posted = f.get('DTPOSTED');
    const amount = f.get('TRNAMT');
    if (posted === undefined) throw new ParseError(at, 'STMTTRN has no DTPOSTED');
    if (amount === undefined) throw new ParseError(at, 'STMTTRN has no TRNAMT');
    // NAME is what the bank shows; MEMO is extra detail, used only when there is no NAME.
    const name = decodeEntities(f.get('NAME') ?? f.get('MEMO') ?? '');
    lines.push(
      line(parseCompactDate(posted, at), parseMoney(amount, at, 'TRNAMT'), name, f.get('FITID')),
    );
    sourceLines.push(at);
  }
  if (lines.length === 0 && !/<BANKTRANLIST>/i.test(content))
    throw new ParseError(1, 'the OFX file has no BANKTRANLIST');
  return { lines, sourceLines };
}
