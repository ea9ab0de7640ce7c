import { ACTION_CLASSES } from '@finance-desk/protocol';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.js';
import { loadPolicy, mayDecide } from '../governance/policy.js';
import { fileById, listFiles } from '../ops/files.js';
import type { Queryable } from '../storage/types.js';
import { render, signedIn } from './console-pages.js';
import { pathId, type ConsoleOptions } from './console-http.js';
import { html, when, type Html } from './html.js';
import type { HumanSession } from './sessions.js';

/**
 * Payment and lodgement files in the console (issue 12 item 5): people with decision rights (for
 * any class of act: they are the ones who approve what these files carry) see every ABA file and
 * lodgement document with its date, kind, size and SHA-256, and download the exact bytes. Keys
 * read the same through `books.files` / `books.file` (ops/files.ts).
 */
const KIND_WORDS: Readonly<Record<string, string>> = {
  aba: 'ABA payment file',
  bas: 'BAS lodgement',
  stp_pay_event: 'STP pay event',
};

/** The files page lists at most this many, newest first (the API pages through all of them). */
const FILES_PAGE_MAX = 200;

async function requireDecider(q: Queryable, s: HumanSession): Promise<void> {
  const policy = await loadPolicy(q, s.orgId);
  const user = { id: s.userId, role: s.role };
  if (!ACTION_CLASSES.some((c) => mayDecide(policy, c, user))) {
    throw new DomainError(
      'FORBIDDEN_SCOPE',
      'payment and lodgement files are for people with decision rights; an owner can grant them on the Policy page',
    );
  }
}

function sizeWords(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`;
}

type Listed = Awaited<ReturnType<typeof listFiles>>['files'][number];

function filesBody(files: readonly Listed[], more: boolean): Html {
  if (files.length === 0) {
    return html`<h1>Payment and lodgement files</h1>
<p>No payment or lodgement file has been written yet. Payment runs and signed pay runs write ABA
files; BAS and STP lodgements write documents for the ATO.</p>`;
  }
  const rows = files.map(
    (f) => html`<tr>
  <td>${when(f.createdAt)}</td>
  <td>${KIND_WORDS[f.kind] ?? f.kind}</td>
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
      await requireDecider(o.db.reader, s);
      const page = await listFiles(o.db.reader, s.orgId, { limit: FILES_PAGE_MAX });
      return render(o, reply, s, { status: 200, title: 'Files', body: filesBody(page.files, page.nextCursor !== null), current: 'files' });
    }),
  );
  app.get(
    '/console/files/:id',
    signedIn(o, async (req, reply, s) => {
      await requireDecider(o.db.reader, s);
      const { file, bytes } = await fileById(o.db.reader, s.orgId, pathId(req));
      // The name comes from an id (file-drop.ts refuses anything else), so it needs no escaping.
      return reply
        .code(200)
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('x-content-sha256', file.sha256)
        .header('cache-control', 'no-store')
        .send(bytes);
    }),
  );
}
