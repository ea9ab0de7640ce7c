// `npm run lint`: ESLint (zero warnings) and Prettier's check, at the same time. ESLint runs on one
// core; Prettier's check is seconds of CPU on its own, so on a CI machine of two cores it costs no
// wall time beside ESLint. Each tool's output is printed whole when it ends (eslint first), and
// the exit code is the first non-zero one.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

function run(name, args) {
  return new Promise((resolve) => {
    const child = spawn(bin(name), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (out += c));
    child.once('error', (error) => resolve({ name, code: 2, out: `${out}${error.message}\n` }));
    child.once('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), out }));
  });
}

const results = await Promise.all([run('eslint', ['--max-warnings', '0', '.']), run('prettier', ['--check', '.'])]);
for (const r of results) {
  process.stdout.write(`> ${r.name}: ${r.code === 0 ? 'ok' : `exit ${r.code}`}\n${r.out}`);
}
process.exitCode = results.find((r) => r.code !== 0)?.code ?? 0;
