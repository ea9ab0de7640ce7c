// The ledger verifier micro-benchmark: `ChainVerifier.pushStored` (what `finance-desk verify` runs
// per row) against raw SHA-256 over the same bytes, in this process (code in bench/ledger.mjs).
import { join } from 'node:path';
import { verifyBench, verifyMethod, verifyTable } from '../ledger.mjs';
import { int, log, pct, table } from '../harness/report.mjs';
import { ROOT } from '../harness/settings.mjs';

export const name = 'ledger-verify';

const PROTOCOL_DIST = join(ROOT, 'packages/protocol/dist/index.js');

/** Runs in a full run and with BENCH_SCENARIOS=ledger. */
export async function run(settings) {
  log(`ledger verifier micro-benchmark: ${int(settings.verifyRows)} rows, best of ${settings.verifyRepeats}`);
  const verify = await verifyBench({ protocolDist: PROTOCOL_DIST, rows: settings.verifyRows, repeats: settings.verifyRepeats });
  log(`stored-row verify ${int(verify.storedPerSec)} rows/s, raw SHA-256 ${int(verify.shaPerSec)} rows/s, ratio ${pct(verify.ratio)}`);
  return verify;
}

/** Its bullet of the document's Method section. */
export function method(verify) {
  return verify ? verifyMethod(verify, { int }) : '';
}

/** Its section of the document. */
export function render(verify) {
  return `## Ledger verification

${verify ? verifyTable(verify, { table, int, pct }) : '_Not run (BENCH_SCENARIOS)._'}`;
}

/** The table printed on stdout at the end of the run. */
export function tables(verify) {
  return verify ? [verifyTable(verify, { table, int, pct })] : [];
}

/** Its line of the Goals section. */
export function goals(verify) {
  const verdict = (ok) => `**${ok ? 'met' : 'not met'}**`;
  if (!verify) return [];
  return [
    `\`finance-desk verify\` ≥ 80 % of raw SHA-256 over the same bytes — ${verdict(verify.ratio >= 0.8)} ` +
      `(${pct(verify.ratio)} of one-shot SHA-256; ${pct(verify.ratioCreateHash)} of \`createHash\`)`,
  ];
}

/** Its bullet of "How to read this". */
export function notes() {
  return `- **stored-row verify ÷ fastest raw SHA-256** is how close \`finance-desk verify\`'s per-row work
  (link, build the hash input, hash, compare, check the payload is canonical) runs to hashing the
  same bytes alone (goal: ≥ 80 %).`;
}
