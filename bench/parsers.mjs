#!/usr/bin/env node
// Bank statement parser micro-benchmark: a ~1 MB ordinary statement against
// ~1 MB hostile bodies of the same format, timed through the compiled parseBankFile, best of N.
// bench/run.mjs includes its table in docs/benchmarks.md; `node bench/parsers.mjs` (after
// `npm run build`) prints it alone. The headline is hostile ÷ ordinary: a parser that is linear
// and stops at its cap keeps it near or below 1, where the old OFX reader took 30–40 s on a body
// the ordinary one read in milliseconds.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PARSE_DIST = join(ROOT, 'packages/server/dist/domain/reconciliation/bank-parse.js');
const SIZE = 950_000;

const OFX_HEAD = 'OFXHEADER:100\r\nDATA:OFXSGML\r\n\r\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>\r\n';
const fill = (head, unit) => head + unit.repeat(Math.floor((SIZE - head.length) / unit.length));

/** Each format: an ordinary ~1 MB statement (under the 5 000-line cap) and its hostile shapes. */
const CASES = [
  {
    format: 'ofx',
    ordinary: fill(
      OFX_HEAD,
      '<STMTTRN>\r\n<TRNTYPE>DEBIT\r\n<DTPOSTED>20261101003000[+11:AEDT]\r\n<TRNAMT>-1234.50\r\n<FITID>202611010001\r\n<NAME>BUNNINGS WAREHOUSE BROOKVALE NSW CARD 4921 VALUE DATE 01/11/2026 REF 0001\r\n<MEMO>EFTPOS PURCHASE AUS\r\n</STMTTRN>\r\n',
    ),
    hostile: [
      ['21,000 minimal STMTTRN blocks (over the cap)', fill(OFX_HEAD, '<STMTTRN><DTPOSTED>20260101<TRNAMT>1</STMTTRN>')],
      ['unclosed STMTTRN tags', fill(OFX_HEAD, '<STMTTRN>')],
      ['one STMTTRN, then unclosed leaf tags', fill(`${OFX_HEAD}<STMTTRN>`, '<NAME>x<TRNAMT')],
    ],
  },
  {
    format: 'qif',
    ordinary: fill(
      '!Type:Bank\r\n',
      'D01/11/26\r\nT-1,234.50\r\nN000123\r\nPBUNNINGS WAREHOUSE BROOKVALE NSW CARD 4921 VALUE DATE 01/11/2026 REF 0001 EFTPOS PURCHASE\r\nMTIMBER, FIXINGS AND SEALANT FOR THE HARBOURSIDE KITCHEN JOB, ORDER 77125\r\n^\r\n',
    ),
    hostile: [
      ['tiny records (over the cap)', fill('!Type:Bank\n', 'D01/06/26\nT1\n^\n')],
      ['lines with no ^', fill('!Type:Bank\n', 'D01/06/26\n')],
    ],
  },
  {
    format: 'csv',
    ordinary: fill(
      '',
      '01/11/2026,"-1,234.50","BUNNINGS WAREHOUSE BROOKVALE NSW CARD 4921 VALUE DATE 01/11/2026 REF 0001 EFTPOS PURCHASE AUS TIMBER, FIXINGS AND SEALANT FOR THE HARBOURSIDE KITCHEN JOB ORDER 77125"\r\n',
    ),
    hostile: [
      ['tiny rows (over the cap)', fill('', '01/06/26,-1,X\n')],
      ['one quoted field never closed', fill('01/06/26,-1,"', 'x,')],
    ],
  },
];

export async function parserBench(repeats = 5) {
  const { parseBankFile } = await import(pathToFileURL(PARSE_DIST).href);
  const time = (content, format) => {
    let best = Infinity;
    let outcome = '';
    for (let r = 0; r < repeats; r += 1) {
      const start = process.hrtime.bigint();
      try {
        outcome = `${parseBankFile({ format, content }).lines.length} lines`;
      } catch (e) {
        if (e?.name !== 'ParseError') throw e;
        outcome = `refused at line ${e.line}`;
      }
      best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
    }
    return { ms: best, chars: content.length, outcome };
  };
  const rows = [];
  for (const c of CASES) {
    const ordinary = time(c.ordinary, c.format);
    rows.push({ format: c.format, body: 'ordinary statement', ...ordinary, ratio: 1 });
    for (const [name, content] of c.hostile) {
      const h = time(content, c.format);
      rows.push({ format: c.format, body: `hostile: ${name}`, ...h, ratio: h.ms / ordinary.ms });
    }
  }
  return { repeats, rows };
}

export function parserTable(p, table) {
  return table(
    ['Format', 'Body', 'Characters', `ms (best of ${p.repeats})`, 'Outcome', 'hostile ÷ ordinary'],
    p.rows.map((r) => [
      r.format,
      r.body,
      r.chars.toLocaleString('en-US'),
      r.ms.toFixed(1),
      r.outcome,
      r.body === 'ordinary statement' ? '—' : `**${r.ratio.toFixed(2)}**`,
    ]),
  );
}

const plainTable = (header, rows) => [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const p = await parserBench(Number(process.env.BENCH_PARSER_REPEATS ?? 5));
  process.stdout.write(`${parserTable(p, plainTable)}\n`);
}
