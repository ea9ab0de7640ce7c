import { ACTION_CLASS, ACTION_CLASSES } from '@finance-desk/protocol';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.js';
import { loadPolicy, mayDecide } from '../governance/policy.js';
import { fileById, listFiles, servedBytes } from '../ops/files.js';
import type { Queryable } from '../storage/types.js';
import { render, signedIn } from './console-pages.js';
import { pathId, type ConsoleOptions } from './console-http.js';
import { html, when, type Html } from './html.js';
import type { HumanSession } from './sessions.js';

/**
 * Payment and lodgement files in the console: people with decision rights (for
 * any class of act: they are the ones who approve what these files carry) see every ABA file and
 * lodgement document with its date, kind, size and SHA-256, and download the exact bytes. Keys
 * read the same through `books.files` / `books.file` (ops/files.ts).
 *
 * An STP pay event carries every payee's TFN in full. Its exact bytes are downloaded only by a
 * person with payroll decision rights (books.payroll_sign: the people who sign what it reports);
 * any other decider downloads it with the TFNs masked, as a key reads it (`<id>.masked.json`,
 * `x-content-masked: tfn`, `x-served-sha256` of the bytes sent; `x-content-sha256` stays the
 * lodged file's, as the page lists it) — docs/decisions.md "TFNs in files".
 */
const KIND_WORDS: Readonly<Record<string, string>> = {
  aba: 'ABA payment file',
  bas: 'BAS lodgement',
  stp_pay_event: 'STP pay event',
};

/** The files page lists at most this many, newest first (the API pages through all of them). */
const FILES_PAGE_MAX = 200;

/** A decider (of any class) may open the files; one who decides payroll sees the exact TFNs (returned). */
async function requireDecider(q: Queryable, s: HumanSession): Promise<{ payroll: boolean }> {
  const policy = await loadPolicy(q, s.orgId);
  const user = { id: s.userId, role: s.role };
  if (!ACTION_CLASSES.some((c) => mayDecide(policy, c, user))) {
    throw new DomainError(
      'FORBIDDEN_SCOPE',
      'payment and lodgement files are for people with decision rights; an owner can grant them on the Policy page',
    );
  }
  return { payroll: mayDecide(policy, ACTION_CLASS.payrollSign, user) };
}

function sizeWords(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`;
}

type Listed = Awaited<ReturnType<typeof listFiles>>['files'][number];

function filesBody(files: readonly Listed[], more: boolean, payroll: boolean): Html {
  if (files.length === 0) {
    return html`<h1>Payment and lodgement files</h1>
<p>No payment or lodgement file has been written yet. Payment runs and signed pay runs write ABA
files; BAS and STP lodgements write documents for the ATO.</p>`;
  }
  const rows = files.map(
    (f) => html`<tr>
  <td>${when(f.createdAt)}</td>
  <td>${KIND_WORDS[f.kind] ?? f.kind}${!payroll && f.kind === 'stp_pay_event' ? html`<br><span class="hint">TFNs masked for you</span>` : null}</td>
  <td><a href="/console/files/${encodeURIComponent(f.id)}" download="${f.filename}">${f.filename}</a>
    <br><span class="hint">of <code>${f.source}</code></span></td>
  <td>${sizeWords(f.sizeBytes)}</td>
  <td><code class="hash">${f.sha256}</code></td>
  <td>${f.deliveredAt ? html`delivered ${when(f.deliveredAt)}` : 'queued'}</td>
</tr>`,
  );
  return html`<h1>Payment and lodgement files</h1>
<p class="hint">The exact bytes sent to the bank or the ATO. Check a downloaded file with
<code>sha256sum</code>: it must print the SHA-256 shown here.</p>
${
  payroll
    ? null
    : html`<p class="hint">STP pay events download with the employees' TFNs masked (<code>******210</code>), so
their SHA-256 is not the one shown (that is the lodged file's): only people with payroll decision
rights download them exactly as lodged.</p>`
}
<div class="table-wrap"><table class="files">
<caption>Newest first${more ? html`; the ${FILES_PAGE_MAX} most recent (the books.files read pages through all)` : null}</caption>
<thead><tr><th scope="col">Written</th><th scope="col">Kind</th><th scope="col">File</th><th scope="col">Size</th><th scope="col">SHA-256</th><th scope="col">Delivery</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

export function registerFilesConsole(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/files',
    signedIn(o, async (_req, reply, s) => {
      const { payroll } = await requireDecider(o.db.reader, s);
      const page = await listFiles(o.db.reader, s.orgId, { limit: FILES_PAGE_MAX });
      return render(o, reply, s, {
        status: 200,
        title: 'Files',
        body: filesBody(page.files, page.nextCursor !== null, payroll),
        current: 'files',
      });
    }),
  );
  app.get(
    '/console/files/:id',
    signedIn(o, async (req, reply, s) => {
      const { payroll } = await requireDecider(o.db.reader, s);
      const { file, bytes } = await fileById(o.db.reader, s.orgId, pathId(req));
      const served = payroll ? { masked: false, bytes } : servedBytes(file, bytes);
      // The name comes from an id (file-drop.ts refuses anything else), so it needs no escaping.
      const filename = served.masked ? file.filename.replace(/\.json$/, '.masked.json') : file.filename;
      reply
        .code(200)
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('x-content-sha256', file.sha256)
        .header('cache-control', 'no-store');
      if (served.masked) {
        reply.header('x-content-masked', 'tfn').header('x-served-sha256', createHash('sha256').update(served.bytes).digest('hex'));
      }
      return reply.send(served.bytes);
    }),
  );
}
