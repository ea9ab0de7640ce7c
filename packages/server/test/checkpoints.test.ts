/**
 * Signed checkpoints. The server signs each chain head (C2SP signed note,
 * Ed25519); an auditor holding only an old checkpoint and the verifier key detects a rewritten
 * history, even one whose hashes were all recomputed so that the chain alone verifies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpoint } from '@finance-desk/protocol';
import { checkpointNow, checkpointSweep, listCheckpoints, signerFrom, verifyExtends } from '../src/ledger/checkpoints.js';
import { verifyStoredChain } from '../src/ledger/verify.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, freshDatabaseUrl, runCliInProcess, startTestServer, type TestServer } from './harness.js';
import { rewriteHistory } from './tamper-helpers.js';

const SEED = Buffer.alloc(32, 42).toString('base64');
const signer = signerFrom('books.test', SEED);

describe.each(engines)('signed checkpoints on %s', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const task = async (title: string) => expect((await t.post(org.keys.agent, 'board.createTask', { title })).status).toBe(200);

  it("signs the head as a C2SP checkpoint of this organisation's log", async () => {
    await task('first');
    const c = await checkpointNow(t.db, signer, org.orgId, '2026-11-25T00:00:00.000Z');
    const head = (await t.get(org.keys.observer, 'snapshot')).body.head;
    expect(c).toMatchObject({ seq: head.seq, rowHash: head.rowHash });
    const opened = openCheckpoint(c?.note ?? '', signer.vkey);
    expect(opened).toMatchObject({ ok: true, checkpoint: { origin: `books.test/${org.orgId}`, size: head.seq, rootHash: head.rowHash } });
    // Signing the same head again returns the same checkpoint.
    expect((await checkpointNow(t.db, signer, org.orgId, '2026-11-25T01:00:00.000Z'))?.note).toBe(c?.note);
  });

  it('the sweep signs heads that are due: N events since the last checkpoint, or any event after the interval', async () => {
    const policy = { everyEvents: 3, everyMs: 3_600_000 };
    const seqs = async () => (await listCheckpoints(t.db.reader, org.orgId, 0, 100)).map((c) => c.seq);
    const before = await seqs();
    await task('a');
    await task('b');
    expect(await checkpointSweep(t.db, signer, policy, '2026-11-25T00:10:00.000Z')).toBe(0);
    await task('c');
    expect(await checkpointSweep(t.db, signer, policy, '2026-11-25T00:20:00.000Z')).toBe(1);
    await task('d');
    expect(await checkpointSweep(t.db, signer, policy, '2026-11-25T00:30:00.000Z')).toBe(0);
    expect(await checkpointSweep(t.db, signer, policy, '2026-11-25T01:30:00.000Z')).toBe(1);
    expect((await seqs()).length).toBe(before.length + 2);
  });

  it('a chain that extends an old checkpoint verifies against it', async () => {
    const old = (await listCheckpoints(t.db.reader, org.orgId, 0, 1))[0];
    await task('later');
    const verdict = await verifyExtends(t.db, org.orgId, old?.note ?? '', signer.vkey, signer.name);
    expect(verdict).toMatchObject({ ok: true, checkpointSeq: old?.seq });
  });

  it('a rewritten history that re-hashes every row passes a plain verify but not the old checkpoint', async () => {
    const old = (await listCheckpoints(t.db.reader, org.orgId, 0, 1))[0];
    if (!old) throw new Error('no checkpoint');
    await rewriteHistory(t, org.orgId, old.seq, 'first', 'FIRST');
    expect(await verifyStoredChain(t.db, org.orgId)).toMatchObject({ ok: true });
    expect(await verifyExtends(t.db, org.orgId, old.note, signer.vkey, signer.name)).toEqual({
      ok: false,
      reason: `the row at seq ${old.seq} no longer hashes to the checkpoint's root: history was rewritten`,
    });
    // Put it back so the harness's own chain check at close passes.
    await rewriteHistory(t, org.orgId, old.seq, 'FIRST', 'first');
    expect(await verifyExtends(t.db, org.orgId, old.note, signer.vkey, signer.name)).toMatchObject({ ok: true });
  });

  it("another organisation's checkpoint, or a forged signature, is refused", async () => {
    const other = await t.org();
    await t.post(other.keys.agent, 'board.createTask', { title: 'x' });
    const theirs = await checkpointNow(t.db, signer, other.orgId, '2026-11-25T00:00:00.000Z');
    expect(await verifyExtends(t.db, org.orgId, theirs?.note ?? '', signer.vkey, signer.name)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/is not this organisation's log/),
    });
    const forger = signerFrom('books.test', Buffer.alloc(32, 1).toString('base64'));
    const forged = await checkpointNow(t.db, forger, org.orgId, '2026-11-25T00:00:00.000Z');
    expect(await verifyExtends(t.db, org.orgId, forged?.note ?? '', signer.vkey, signer.name)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^checkpoint: no signature by books\.test/),
    });
  });
});

describe('a server that signs checkpoints', () => {
  it('publishes its verifier key and the log origin in GET artifacts, and its sweep signs heads as they become due', async () => {
    const t = await startTestServer('sqlite', { checkpoint: { keyName: 'books.test', seed: SEED, everyEvents: 2, everyMs: 1000 } });
    try {
      const org = await t.org();
      const index = await t.get(org.keys.observer, 'artifacts');
      expect(index.body.checkpoints).toEqual({ keyName: 'books.test', verifierKey: signer.vkey, origin: `books.test/${org.orgId}` });
      await t.post(org.keys.agent, 'board.createTask', { title: 'one' });
      await t.post(org.keys.agent, 'board.createTask', { title: 'two' });
      let signed: Awaited<ReturnType<typeof listCheckpoints>> = [];
      for (let i = 0; i < 60 && signed.length === 0; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        signed = await listCheckpoints(t.db.reader, org.orgId, 0, 10);
      }
      expect(signed.length).toBeGreaterThanOrEqual(1);
      expect(await verifyExtends(t.db, org.orgId, signed[0]?.note ?? '', index.body.checkpoints.verifierKey, 'books.test')).toMatchObject({
        ok: true,
      });
    } finally {
      await t.close();
    }
  });

  it('says null when it signs none', async () => {
    const t = await startTestServer('sqlite');
    try {
      const org = await t.org();
      expect((await t.get(org.keys.observer, 'artifacts')).body.checkpoints).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe('checkpoint commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fd-checkpoint-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keygen, sign, verify --checkpoint; a missing key is named', async () => {
    const { url, drop } = await freshDatabaseUrl('sqlite');
    try {
      const gen = await runCliInProcess(url, 'checkpoint', 'keygen', '--name', 'books.cli.test', '--json');
      expect(gen.code).toBe(0);
      const keys = JSON.parse(gen.out) as { signingKey: string; verifierKey: string };
      expect(keys.verifierKey).toMatch(/^books\.cli\.test\+[0-9a-f]{8}\+/);
      const missing = await runCliInProcess(url, 'checkpoint', 'key');
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('CHECKPOINT_SIGNING_KEY: not set');
      const created = JSON.parse((await runCliInProcess(url, 'org', 'create', '--name', 'Checked Pty Ltd', '--json')).out) as {
        slug: string;
      };
      process.env.CHECKPOINT_SIGNING_KEY = keys.signingKey;
      process.env.CHECKPOINT_KEY_NAME = 'books.cli.test';
      try {
        expect((await runCliInProcess(url, 'checkpoint', 'key')).out.trim()).toBe(keys.verifierKey);
        const signed = await runCliInProcess(url, 'checkpoint', 'sign', '--org', created.slug);
        expect(signed.code).toBe(0);
        expect(signed.out).toMatch(/^books\.cli\.test\/org_\S+\n\d+\n\S+\n\n\u2014 books\.cli\.test \S+\n$/);
        const file = join(dir, 'cp.txt');
        writeFileSync(file, signed.out);
        const ok = await runCliInProcess(url, 'verify', '--org', created.slug, '--checkpoint', file, '--vkey', keys.verifierKey, '--json');
        expect(ok.code).toBe(0);
        expect(JSON.parse(ok.out)).toMatchObject({ ok: true });
        writeFileSync(
          file,
          signed.out.replace(/\n(\d+)\n/, (_m, n: string) => `\n${Number(n) + 1}\n`),
        );
        const bad = await runCliInProcess(url, 'verify', '--org', created.slug, '--checkpoint', file, '--vkey', keys.verifierKey);
        expect(bad.code).toBe(1);
        expect(bad.out).toContain('NOT OK: checkpoint: signature does not verify');

        // A period's audit pack starts at the last checkpoint signed before it, unless asked for the whole past.
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
        const period = ['--org', created.slug, '--from', tomorrow, '--to', tomorrow, '--json'];
        const since = await runCliInProcess(url, 'audit-pack', ...period, '--out', join(dir, 'since.tar.gz'));
        expect(since.code, since.err).toBe(0);
        const seq = Number(signed.out.split('\n')[1]);
        expect(JSON.parse(since.out)).toMatchObject({ start: { seq }, events: 0 });
        const full = await runCliInProcess(url, 'audit-pack', ...period, '--full-history', '--out', join(dir, 'full.tar.gz'));
        expect(full.code, full.err).toBe(0);
        expect(JSON.parse(full.out)).toMatchObject({ start: null, events: seq });
      } finally {
        delete process.env.CHECKPOINT_SIGNING_KEY;
        delete process.env.CHECKPOINT_KEY_NAME;
      }
    } finally {
      await drop();
    }
  });
});
