import { ACTIVITY_GROUPS, type Activity } from './activity.js';
import { html, raw, when, type Html } from './html.js';

/**
 * The owner's activity as HTML: each event's sentence first, what somebody typed quoted and
 * labelled as theirs, and the technical facts (event kind, seq, ids) folded away. Every value
 * goes through `html` (escaped).
 */

function activityItem(a: Activity): Html {
  const said = a.said.map(
    (s) =>
      html`<p class="caller"><span class="label">${s.label}:</span> <q>${s.text}</q> <span class="hint">(not checked by Finance Desk)</span></p>`,
  );
  return html`<li class="event">
  <p class="event-summary">${a.sentence}</p>
  ${said}
  <p class="event-head hint">${when(a.at)}</p>
  <details class="technical">
    <summary>Details</summary>
    <p class="hint">Event <code>${a.kind}</code> <span class="mono">#${a.seq}</span>; subject <code>${a.entityId === '' ? '—' : a.entityId}</code>;
    by <code>${a.actor === '' ? 'system' : a.actor}</code></p>
  </details>
</li>`;
}

export function activityList(items: readonly Activity[], empty = 'Nothing has happened yet.'): Html {
  if (items.length === 0) return html`<p>${empty}</p>`;
  return html`<ol class="events plain">${items.map(activityItem)}</ol>`;
}

export interface ActivityFilterView {
  /** The chosen kind of work and actor (as in the query), or null. */
  readonly kind: string | null;
  readonly who: string | null;
  readonly actors: readonly { readonly id: string; readonly name: string }[];
  /** A bad filter's message (the page is then a 400). */
  readonly error: string | null;
}

/** The filter form: kind of work and who acted, as GET parameters `kind` and `who`. */
export function activityFilterForm(f: ActivityFilterView): Html {
  const kinds = [
    html`<option value=""${f.kind === null ? raw(' selected') : null}>All kinds of work</option>`,
    ...ACTIVITY_GROUPS.map((g) => html`<option value="${g.key}"${g.key === f.kind ? raw(' selected') : null}>${g.label}</option>`),
  ];
  const actors = [
    html`<option value=""${f.who === null ? raw(' selected') : null}>Anyone</option>`,
    ...f.actors.map((a) => html`<option value="${a.id}"${a.id === f.who ? raw(' selected') : null}>${a.name}</option>`),
  ];
  const error = f.error ? html`<p role="alert" class="notice error" id="activity-error">${f.error}</p>` : null;
  return html`${error}<form method="get" action="/console/books/activity" class="filter">
  <label for="kind">Kind of work</label>
  <select id="kind" name="kind">${kinds}</select>
  <label for="who">Who</label>
  <select id="who" name="who">${actors}</select>
  <button type="submit" class="secondary">Show</button>
</form>`;
}

/** The hint under a filtered page: how far back it looked. */
export function searchedHint(filtered: boolean, searchedFrom: number | null, nextBefore: number | null): Html | null {
  if (!filtered || searchedFrom === null) return null;
  return html`<p class="hint">Looked through the ledger back to event #${searchedFrom}${nextBefore === null ? '' : '; the next page looks further back'}.</p>`;
}
