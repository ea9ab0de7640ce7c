/**
 * README.md's quick start, run as written: its ```sh blocks are read from README at run time and
 * executed in order in one bash session, against the real server that its `npm start &` starts,
 * so a README edit that stops the quick start from working fails here. Each substitution a
 * newcomer's own shell would not need is listed in `substitutions` or in the session's
 * environment, with its reason. One engine: the quick start runs the embedded default, SQLite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePorts } from './multiprocess.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const HEADING = "## Quick start: from zero to an agent's first held act, approved by a human";

/** The quick-start section of README: from its heading to the next `## `. */
function quickStart(): string {
  const start = README.indexOf(`${HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${HEADING}"`);
  const end = README.indexOf('\n## ', start + HEADING.length);
  return README.slice(start, end < 0 ? undefined : end);
}

interface Step {
  /** The command as README writes it (continuation lines joined with their newlines). */
  readonly command: string;
  /** Its expected-output comments: one after the command on its line, and the `#` lines below it. */
  readonly expected: string;
}

/** The section's ```sh blocks as commands, in order, each with the comments that follow it. */
function steps(section: string): Step[] {
  const out: { command: string; expected: string[] }[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)\n```/g)) {
    let inBlock = false;
    let pending = '';
    for (const line of (block[1] ?? '').split('\n')) {
      const text = pending ? `${pending}\n${line}` : line;
      // A line ending in `\` or `|` continues on the next.
      if (/(\\|\|)\s*$/.test(line)) {
        pending = text;
        continue;
      }
      pending = '';
      if (/^\s*$/.test(text)) continue;
      if (/^\s*#/.test(text)) {
        // A comment belongs to the command above it in the same block (a leading one is prose).
        if (inBlock) out.at(-1)?.expected.push(text.replace(/^\s*#\s?/, ''));
        continue;
      }
      const inline = /\s{2,}#\s(.*)$/.exec(text);
      out.push({ command: text, expected: inline?.[1] !== undefined ? [inline[1]] : [] });
      inBlock = true;
    }
  }
  return out.map((s) => ({ command: s.command, expected: s.expected.join('\n') }));
}

/** Every quoted string of an expected-output comment that is not elided (`…`, `<…>`, an example ledger id). */
function shownStrings(expected: string): string[] {
  return [...expected.matchAll(/"([^"\\]*)"/g)]
    .map((m) => m[1] ?? '')
    .filter((s) => s !== '' && !s.includes('…') && !s.includes('<') && !/^[0-9a-f]{8}$/.test(s));
}

const MARK = '\u001fquickstart-step-done';

/**
 * One bash session, as a newcomer's terminal: commands arrive on fd 3 (NUL-separated) and run by
 * `eval`, so variables, the `call` function and the `npm start &` job persist from one to the
 * next; stdin is /dev/null so no command can swallow the next. After each, a marker line with its
 * exit code ends its output. bash leads its own process group, which afterAll ends.
 */
class Session {
  private out = '';
  private err = '';
  private notify: () => void = () => undefined;
  readonly child: ChildProcess;

  constructor(env: NodeJS.ProcessEnv) {
    const loop = `while IFS= read -r -d '' QUICKSTART_STEP <&3; do eval "$QUICKSTART_STEP"; printf '\\n${MARK} %s\\n' "$?"; done`;
    this.child = spawn('bash', ['--noprofile', '--norc', '-c', loop], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (d: Buffer) => {
      this.out += d.toString('utf8');
      this.notify();
    });
    this.child.stderr?.on('data', (d: Buffer) => {
      this.err += d.toString('utf8');
    });
    this.child.on('exit', () => this.notify());
  }

  /** Run one command; resolve with its exit code, stdout and stderr. */
  async run(command: string, timeoutMs = 20_000): Promise<{ code: number; out: string; err: string }> {
    const from = this.out.length;
    const errFrom = this.err.length;
    (this.child.stdio[3] as NodeJS.WritableStream).write(`${command}\0`);
    const deadline = Date.now() + timeoutMs;
    const re = new RegExp(`\\n${MARK} (\\d+)\\n`);
    for (;;) {
      const done = re.exec(this.out.slice(from));
      if (done) {
        const out = this.out.slice(from, from + done.index);
        return { code: Number(done[1]), out, err: this.err.slice(errFrom) };
      }
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no end to: ${command}\nstdout: ${this.out.slice(from)}\nstderr: ${this.err.slice(errFrom)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** End bash and everything it started (the npm start job and its server), by process group. */
  async close(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // the group is gone
      }
    };
    kill('SIGTERM');
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(-pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    kill('SIGKILL');
  }
}

describe('README quick start, run as written (SQLite, the embedded default)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fd-quickstart-'));
  let session: Session | undefined;
  afterAll(async () => {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a newcomer from org create to an approved dunning step, a verified chain and a cited answer', async () => {
    const section = quickStart();
    const walk = steps(section);
    // The human's decision is in the prose (it runs in another terminal, on the server).
    const decideLine = /`(npx finance-desk approval decide [^`]+)`/.exec(section)?.[1];
    expect(decideLine, 'the quick start gives the CLI line that approves').toBeDefined();

    const [port] = await freePorts(1);
    const home = join(dir, 'home');
    const env: NodeJS.ProcessEnv = {
      // A newcomer's PATH: node and npm, but not this checkout's node_modules/.bin, so `npx finance-desk`
      // must resolve through the workspace bin as it would for them.
      PATH: [dirname(process.execPath), ...(process.env['PATH'] ?? '').split(':').filter((p) => !p.includes('node_modules'))].join(':'),
      // ~/finance-desk-org.json lands in a fresh home, not the developer's.
      HOME: home,
      // The database and the outboxes (default ./data/… in the checkout) in a temporary directory.
      DATABASE_URL: `sqlite:${join(dir, 'finance-desk.db')}`,
      EMAIL_OUTBOX_DIR: join(dir, 'outbox'),
      PAYMENTS_OUTBOX_DIR: join(dir, 'payments'),
      LODGEMENT_OUTBOX_DIR: join(dir, 'lodgements'),
      // A free port instead of 8080 (README's URLs are rewritten to match below).
      PORT: String(port),
      // npm would otherwise ask the registry whether a newer npm exists.
      npm_config_update_notifier: 'false',
      // Nothing else: no AI_PROVIDER, so books.ask uses the default gateway of a bare machine.
    };
    const serverLog = join(dir, 'server.log');
    mkdirSync(home);

    // Values the README elides, taken from earlier commands' output as the newcomer reads them.
    const seen: Record<string, string> = {};
    const value = (name: string) => {
      const v = seen[name];
      if (v === undefined) throw new Error(`README uses ${name} before any command printed it`);
      return v;
    };
    const substitutions: { name: string; pattern: RegExp; replace: (match: string) => string; used: boolean }[] = [
      // `npm ci`: this checkout is installed and built already.
      { name: 'npm ci', pattern: /^npm ci$/, replace: () => ':', used: false },
      // The server's output goes to a log file, not into the command outputs read here.
      { name: 'npm start &', pattern: /^npm start &$/, replace: () => `npm start >'${serverLog}' 2>&1 &`, used: false },
      { name: 'port', pattern: /127\.0\.0\.1:8080/g, replace: () => `127.0.0.1:${port}`, used: false },
      { name: 'invoice id', pattern: /inv_…/g, replace: () => value('invoice id'), used: false },
      { name: 'payload hash', pattern: /<from the hold>/g, replace: () => value('payload hash'), used: false },
      { name: 'approval id', pattern: /apr_…/g, replace: () => value('approval id'), used: false },
      { name: 'owner email', pattern: /<owner email>/g, replace: () => value('owner email'), used: false },
      { name: 'citation', pattern: /(?<=startsWith\(")[0-9a-f]{8}(?="\))/g, replace: () => value('citation'), used: false },
    ];
    const substitute = (command: string) =>
      substitutions.reduce((cmd, s) => {
        if (!s.pattern.test(cmd)) return cmd;
        s.pattern.lastIndex = 0;
        s.used = true;
        return cmd.replace(s.pattern, s.replace);
      }, command);

    session = new Session(env);
    const json = (out: string) => JSON.parse(out);
    const facts = { draft: false, held: false, approved: false, retried: false, verified: false, asked: false, cited: false };

    for (const step of walk) {
      const command = substitute(step.command);
      let decided: { code: number; out: string; err: string } | undefined;
      const running = session.run(command, 40_000);
      if (/approval\.wait/.test(step.command)) {
        // While the agent long-polls, the human decides in another terminal: README's own CLI line.
        await new Promise((r) => setTimeout(r, 300));
        const other = new Session(env);
        try {
          decided = await other.run(substitute(decideLine ?? ''));
        } finally {
          await other.close();
        }
      }
      const r = await running;
      expect(r.code, `${command}\n${r.out}\n${r.err}`).toBe(0);
      for (const s of shownStrings(step.expected))
        expect(r.out, `README shows "${s}" in the output of: ${step.command}`).toContain(`"${s}"`);
      // Every API answer is a success frame.
      if (r.out.startsWith('{"ok":')) expect(json(r.out).ok, `${command}\n${r.out}`).toBe(true);

      const c = step.command;
      if (/^npm start &$/.test(c)) {
        // Wait for the server, as a newcomer waits for its start line.
        const deadline = Date.now() + 20_000;
        for (;;) {
          const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
            (res) => res.ok,
            () => false,
          );
          if (ready) break;
          if (Date.now() > deadline) throw new Error(`npm start: not ready\n${readFileSync(serverLog, 'utf8')}`);
          await new Promise((res) => setTimeout(res, 100));
        }
      } else if (/^cat ~\/finance-desk-org\.json/.test(c)) {
        const org = json(r.out);
        expect(org.slug).toBe('harbour-cafe');
        expect(Object.keys(org.keys).sort()).toEqual(['agent', 'observer', 'reader']);
        seen['owner email'] = org.owner.email;
        seen['owner id'] = org.owner.userId;
        // umask 077: the secrets are readable by their owner alone.
        expect(statSync(join(home, 'finance-desk-org.json')).mode & 0o777).toBe(0o600);
      } else if (/books\.invoiceDraft/.test(c)) {
        const res = json(r.out);
        expect(res.ok).toBe(true);
        expect(res.result.status).toBe('draft');
        expect(res.result.ledgerId).toMatch(/^[0-9a-f]{8}$/);
        seen['invoice id'] = res.result.id;
        facts.draft = true;
      } else if (/books\.invoiceSend/.test(c)) {
        expect(json(r.out).result.status).toBe('sent');
      } else if (/books\.invoiceChaseStep.*"step\\":1/.test(c)) {
        expect(json(r.out).result).toMatchObject({ id: value('invoice id'), step: 1 });
      } else if (/^call books\.invoiceChaseStep.*"step\\":2/.test(c)) {
        const res = json(r.out);
        expect(res.ok).toBe(true);
        expect(res.result.status).toBe('approval_required');
        expect(res.result.approval.payloadHash).toMatch(/^[0-9a-f]{64}$/);
        seen['payload hash'] = res.result.approval.payloadHash;
        facts.held = true;
      } else if (/approval\.request/.test(c)) {
        const res = json(r.out);
        expect(res.result.status).toBe('pending');
        expect(res.result.approvalId).toMatch(/^apr_/);
        seen['approval id'] = res.result.approvalId;
      } else if (/approval\.wait/.test(c)) {
        expect(decided?.code, `${decideLine}\n${decided?.out}\n${decided?.err}`).toBe(0);
        expect(json(decided?.out ?? '')).toMatchObject({ approvalId: value('approval id'), status: 'approved' });
        // README: the waiting call returns {"approvalId","status":"approved","decidedBy","decidedAt","signatureToken"}.
        const res = json(r.out);
        expect(res).toMatchObject({ approvalId: value('approval id'), status: 'approved', decidedBy: value('owner id') });
        expect(res.decidedAt).toEqual(expect.any(String));
        expect(res.signatureToken).toEqual(expect.any(String));
        facts.approved = true;
      } else if (/x-idempotency-key/.test(c)) {
        const res = json(r.out);
        expect(res.ok).toBe(true);
        expect(res.result).toMatchObject({ id: value('invoice id'), step: 2 });
        expect(res.result.ledgerId).toMatch(/^[0-9a-f]{8}$/);
        facts.retried = true;
      } else if (/\/snapshot"/.test(c)) {
        expect(json(r.out).head.seq).toEqual(expect.any(Number));
      } else if (/finance-desk verify/.test(c)) {
        expect(r.out).toMatch(/^chain ok: \d+ events, head seq \d+/);
        facts.verified = true;
      } else if (/books\.ask/.test(c)) {
        const res = json(r.out);
        expect(res.ok).toBe(true);
        expect(res.result.grounded).toBe(true);
        expect(res.result.answer).toContain('Bob Smith');
        expect(res.result.citations.length).toBeGreaterThan(0);
        seen['citation'] = res.result.citations[0];
        facts.asked = true;
      } else if (/row_hash\.startsWith/.test(c)) {
        // The cited event, printed by node; README's comment names its kind.
        const kind = /kind: '([^']+)'/.exec(step.expected)?.[1];
        expect(r.out).toContain(`entity_id: '${value('invoice id')}'`);
        expect(r.out).toContain(`kind: '${kind}'`);
        facts.cited = true;
      }
    }

    expect(facts).toEqual({ draft: true, held: true, approved: true, retried: true, verified: true, asked: true, cited: true });
    // Each substitution stood for something the README still says; otherwise it must go from here.
    expect(substitutions.filter((s) => !s.used).map((s) => s.name)).toEqual([]);
  }, 90_000);
});
