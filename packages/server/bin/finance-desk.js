#!/usr/bin/env node
// The operator CLI (docs/operations.md, "The operator CLI"). Compiled TypeScript lives in ../dist (built by `npm ci` via prepare).
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2));
// `serve` keeps the process alive; other commands end here with their exit code.
if (process.argv[2] !== 'serve' || code !== 0) process.exitCode = code;
if (process.argv[2] !== 'serve' && code !== 0) process.exit(code);
