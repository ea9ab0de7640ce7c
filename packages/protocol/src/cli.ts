#!/usr/bin/env node
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { createGunzip } from 'node:zlib';
import { PACK_EXIT, runPackVerifier } from './verify-pack.js';

/**
 * The protocol package's command (`npx @finance-desk/protocol verify-pack PACK ...`): an auditor
 * checks an audit pack with the published verifier, not with the copy inside the pack. PACK is
 * the .tar.gz as written or the folder it unpacks to; the checks are verify-pack.ts's, the same
 * code the pack's verify.mjs runs.
 */
const USAGE = `usage: finance-desk-protocol verify-pack PACK [--key VERIFIER_KEY] [--checkpoint FILE]... [--json]
  PACK            the audit pack (.tar.gz) or the folder it unpacks to
  --key           the verifier key you were given (else the key inside the pack is used, and said so)
  --checkpoint    a signed checkpoint you hold; the pack's chain must reach its root (repeatable)
  --json          the report as JSON
exit: 0 everything ties out, 1 something does not, 2 usage, 3 nothing failed but some journals or files are unbound
`;

/** Unpack a ustar .tar.gz of regular files into `into`, refusing any name that leaves it. */
async function untar(archive: string, into: string): Promise<void> {
  const root = resolve(into);
  let pending: Buffer = Buffer.alloc(0);
  let file: { path: string; size: number; parts: Buffer[]; got: number } | null = null;
  let skip = 0;
  let ended = false;
  const take = () => {
    for (;;) {
      if (file) {
        const want = file.size - file.got;
        const n = Math.min(want, pending.length);
        file.parts.push(pending.subarray(0, n));
        file.got += n;
        pending = pending.subarray(n);
        if (file.got < file.size) return;
        mkdirSync(dirname(file.path), { recursive: true });
        writeFileSync(file.path, Buffer.concat(file.parts));
        skip = (512 - (file.size % 512)) % 512;
        file = null;
      }
      if (skip > 0) {
        const n = Math.min(skip, pending.length);
        pending = pending.subarray(n);
        skip -= n;
        if (skip > 0) return;
      }
      if (ended || pending.length < 512) return;
      const h = pending.subarray(0, 512);
      pending = pending.subarray(512);
      if (h.every((b) => b === 0)) {
        ended = true;
        return;
      }
      const field = (at: number, len: number) =>
        h
          .subarray(at, at + len)
          .toString('utf8')
          .replace(/\0.*$/s, '');
      const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/');
      const size = parseInt(field(124, 12).trim() || '0', 8);
      const type = field(156, 1) || '0';
      const path = resolve(root, name);
      if (!path.startsWith(root + sep) || name.split('/').includes('..')) throw new Error(`the archive names ${name}, outside its folder`);
      if (type === '5') {
        mkdirSync(path, { recursive: true });
        continue;
      }
      if (type !== '0') throw new Error(`the archive holds ${name}, which is not a regular file (type ${type})`);
      file = { path, size, parts: [], got: 0 };
    }
  };
  for await (const chunk of createReadStream(archive).pipe(createGunzip())) {
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    take();
  }
  if (file) throw new Error('the archive ends inside a file');
}

/** The folder to verify: PACK itself, or the one folder its archive unpacks to. */
async function packFolder(pack: string, work: () => string): Promise<string> {
  if (statSync(pack).isDirectory()) return pack;
  const into = work();
  await untar(pack, into);
  const entries = readdirSync(into);
  return entries.length === 1 && statSync(join(into, entries[0] as string)).isDirectory() ? join(into, entries[0] as string) : into;
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, pack, ...rest] = argv;
  if (command !== 'verify-pack' || pack === undefined || pack.startsWith('--')) {
    process.stderr.write(USAGE);
    return PACK_EXIT.usage;
  }
  const made: string[] = [];
  try {
    const dir = await packFolder(pack, () => {
      made.push(mkdtempSync(join(tmpdir(), 'fd-verify-pack-')));
      return made[0] as string;
    });
    return await runPackVerifier(dir, rest, process.stdout);
  } catch (error) {
    process.stderr.write(`verify-pack: ${error instanceof Error ? error.message : String(error)}\n`);
    return PACK_EXIT.failed;
  } finally {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
