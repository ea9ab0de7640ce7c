// The bank statement parsers, ordinary against hostile bodies, in this process (code in
// bench/parsers.mjs, which also runs alone).
import { parserBench, parserTable } from '../parsers.mjs';
import { log, table } from '../harness/report.mjs';

export const name = 'parsers';

/** Runs in a full run and with BENCH_SCENARIOS=ledger (a second or so). */
export async function run() {
  const parsers = await parserBench();
  log(`bank parsers: ${parsers.rows.map((r) => `${r.format} ${r.body} ${r.ms.toFixed(1)} ms`).join('; ')}`);
  return parsers;
}

/** Its section of the document. */
export function render(parsers) {
  if (!parsers) return '## Bank statement parsers\n\n_Not run (BENCH_SCENARIOS)._';
  return `## Bank statement parsers

${parserTable(parsers, table)}

Each format's ordinary ~1 MB statement (under the 5 000-line cap) against ~1 MB hostile bodies of
the same format, through \`parseBankFile\` in this process (bench/parsers.mjs). A parser that is
linear and stops at its cap keeps **hostile ÷ ordinary** near or below 1; before the parsers were bounded the
OFX reader did not answer the first two OFX bodies within 30 s.`;
}
