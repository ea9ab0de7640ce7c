import { describe, expect, it } from 'vitest';
import {
  checkpointBody,
  openCheckpoint,
  openNote,
  parseCheckpointBody,
  parseVerifierKey,
  signNote,
  signingKeyFromSeed,
  verifierKey,
} from '../src/index.js';

// The published example of the C2SP signed-note format (Go's golang.org/x/mod/sumdb/note).
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const PETER_NOTE =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n" +
  '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';

const SEED = Buffer.alloc(32, 7).toString('base64');

describe('signed notes (C2SP)', () => {
  it('verifies the published example note with its verifier key', () => {
    const opened = openNote(PETER_NOTE, PETER_VKEY);
    expect(opened).toEqual({ ok: true, body: PETER_NOTE.slice(0, PETER_NOTE.indexOf('\n\n') + 1), signedBy: 'PeterNeumann' });
    expect(parseVerifierKey(PETER_VKEY).keyId).toBe('c74f20a3');
  });

  it('refuses the example once one character of its text changes', () => {
    expect(openNote(PETER_NOTE.replace('answer', 'Answer'), PETER_VKEY)).toEqual({ ok: false, reason: 'signature does not verify' });
  });

  it('signs and opens a checkpoint; another key, a changed size or root, or a wrong name are refused', () => {
    const key = signingKeyFromSeed(SEED);
    const vkey = verifierKey('books.example', key);
    expect(vkey).toMatch(/^books\.example\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    const body = checkpointBody({ origin: 'books.example/org_1', size: 42, rootHash: 'ab'.repeat(32) });
    expect(body).toBe(`books.example/org_1\n42\n${Buffer.from('ab'.repeat(32), 'hex').toString('base64')}\n`);
    const note = signNote(body, 'books.example', key);
    const opened = openCheckpoint(note, vkey);
    expect(opened).toMatchObject({
      ok: true,
      signedBy: 'books.example',
      checkpoint: { origin: 'books.example/org_1', size: 42, rootHash: 'ab'.repeat(32) },
    });

    const other = verifierKey('books.example', signingKeyFromSeed(Buffer.alloc(32, 8).toString('base64')));
    expect(openCheckpoint(note, other)).toMatchObject({ ok: false, reason: expect.stringMatching(/^no signature by books\.example/) });
    expect(openCheckpoint(note.replace('\n42\n', '\n43\n'), vkey)).toEqual({ ok: false, reason: 'signature does not verify' });
    expect(openCheckpoint(note, PETER_VKEY)).toMatchObject({ ok: false, reason: 'no signature by PeterNeumann (key hash c74f20a3)' });
  });

  it('refuses malformed keys, bodies and notes with a reason', () => {
    expect(() => parseVerifierKey('name+00000000+AAAA')).toThrow(/malformed/);
    expect(() => parseVerifierKey(PETER_VKEY.replace('c74f20a3', 'c74f20a4'))).toThrow(/key hash does not match/);
    expect(() => signingKeyFromSeed('short')).toThrow(/32-byte/);
    expect(() => parseCheckpointBody('o\n01\nAAAA\n')).toThrow(/size/);
    expect(() => parseCheckpointBody('o\n1\nAAAA\n')).toThrow(/root hash/);
    expect(() => checkpointBody({ origin: 'has space', size: 1, rootHash: 'ab'.repeat(32) })).toThrow(/origin/);
    expect(openNote('no blank line\n', PETER_VKEY)).toMatchObject({ ok: false });
    expect(openNote('text\n\n- PeterNeumann abc\n', PETER_VKEY)).toEqual({ ok: false, reason: 'malformed signature line' });
  });
});
