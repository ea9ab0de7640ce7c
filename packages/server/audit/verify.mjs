#!/usr/bin/env node
// Finance Desk audit pack verifier. Standalone: Node.js 20+ and the files of this pack only. lib/
// is the protocol package's own code, byte for byte: verify-pack.js is the verifier the published
// command runs (`npx @finance-desk/protocol verify-pack PACK --key ...`), so an auditor who does
// not trust this folder runs that instead and gets the same checks. Run it from the pack's folder:
//   node verify.mjs --key "<verifier key>" [--checkpoint old-checkpoint.txt] [--json]
// Exit 0 when everything ties out, 1 when anything does not, 2 on a usage error, 3 when nothing
// failed but journals or files recorded before the binding are unbound (listed, not verified).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPackVerifier } from './lib/verify-pack.js';

process.exitCode = await runPackVerifier(dirname(fileURLToPath(import.meta.url)), process.argv.slice(2), process.stdout);
