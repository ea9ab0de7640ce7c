import { events, tracking as spec, type chart } from '@finance-desk/protocol';
import type { z } from 'zod';
import { badRequest, conflict } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Uow } from '../../write-path.js';
import { searchKey } from '../search-key.js';
import { categoryView, loadTracking, type TrackingCategory, type TrackingOption } from './store.js';

/**
 * books.trackingSet: create or rename a tracking category and add, rename, archive or restore its
 * options, in one call and one event. Idempotent by state: a name is looked up by its search key,
 * and a name already renamed to its newName is found by the new name, so the same call again
 * changes nothing and answers noop with the event that last changed the category. Options are
 * never deleted (a posted line may name one); archiving keeps it in reports and filters and
 * refuses it on new lines. Nothing here posts, so the lock date does not bind it.
 */
type Params = z.infer<typeof chart.trackingSet.params>;

interface Planned extends TrackingOption {
  readonly created: boolean;
  readonly previousName?: string;
  readonly changed: boolean;
}

const quoted = (name: string) => `"${name}"`;

/** The category the call names: by its name, else by newName (a rename already made), else none. */
function findCategory(book: readonly TrackingCategory[], p: Params): TrackingCategory | undefined {
  const byName = book.find((c) => c.key === searchKey(p.category));
  if (byName || p.newName === undefined) return byName;
  const newKey = searchKey(p.newName);
  return book.find((c) => c.key === newKey);
}

function planOptions(category: TrackingCategory | undefined, p: Params, problems: string[]): Planned[] {
  const planned: Planned[] = (category?.options ?? []).map((o) => ({ ...o, created: false, changed: false }));
  const claimed = new Map<string, number>();
  for (const [i, o] of (p.options ?? []).entries()) {
    const key = searchKey(o.name);
    const newKey = o.newName === undefined ? undefined : searchKey(o.newName);
    let at = planned.findIndex((x) => x.key === key);
    if (at < 0 && newKey !== undefined) at = planned.findIndex((x) => x.key === newKey);
    if (at < 0) {
      if (o.newName !== undefined) {
        problems.push(`options[${i}].name: no option ${quoted(o.name)} to rename in ${quoted(category?.name ?? p.category)}`);
        continue;
      }
      if (planned.length >= spec.TRACKING_OPTIONS_MAX) {
        problems.push(`options[${i}].name: a category has at most ${spec.TRACKING_OPTIONS_MAX} options (archived ones count)`);
        continue;
      }
      const id = newId('tro');
      claimed.set(id, i);
      const position = planned.reduce((m, x) => Math.max(m, x.position), 0) + 1;
      planned.push({ id, name: o.name, key, archived: o.archived === true, position, created: true, changed: true });
      continue;
    }
    const current = planned[at] as Planned;
    const first = claimed.get(current.id);
    if (first !== undefined) {
      problems.push(`options[${i}].name: names the same option as options[${first}]`);
      continue;
    }
    claimed.set(current.id, i);
    let next: Planned = current;
    if (o.newName !== undefined && o.newName !== current.name) {
      const taken = planned.find((x) => x.key === newKey && x.id !== current.id);
      if (taken) {
        problems.push(`options[${i}].newName: ${quoted(category?.name ?? p.category)} already has an option ${quoted(taken.name)}`);
        continue;
      }
      next = { ...next, name: o.newName, key: newKey ?? next.key, previousName: current.previousName ?? current.name, changed: true };
    }
    if (o.archived !== undefined && o.archived !== current.archived) next = { ...next, archived: o.archived, changed: true };
    planned[at] = next;
  }
  return planned;
}

export async function trackingSet(p: Params, uow: Uow) {
  const book = await loadTracking(uow.tx, uow.orgId);
  const found = findCategory(book, p);
  if (found === undefined && p.newName !== undefined) {
    throw badRequest(`category: no tracking category named ${quoted(p.category)} or ${quoted(p.newName)} to rename`);
  }
  if (found === undefined && book.length >= spec.TRACKING_CATEGORIES_MAX) {
    throw conflict(
      `category: the organisation has ${spec.TRACKING_CATEGORIES_MAX} tracking categories already (${book.map((c) => quoted(c.name)).join(', ')}); rename one with newName`,
    );
  }
  const problems: string[] = [];
  let name = found?.name ?? p.category;
  if (found !== undefined && p.newName !== undefined && p.newName !== found.name) {
    const newKey = searchKey(p.newName);
    const taken = book.find((c) => c.key === newKey && c.id !== found.id);
    if (taken) problems.push(`newName: a tracking category named ${quoted(taken.name)} already exists`);
    else name = p.newName;
  }
  const options = planOptions(found, p, problems);
  if (problems.length > 0) throw badRequest(problems.join('; '));

  const renamed = found !== undefined && name !== found.name;
  const changed = options.filter((o) => o.changed);
  if (found !== undefined && !renamed && changed.length === 0)
    return { category: categoryView(found), ledgerId: found.ledgerId, noop: true };

  const slot = found?.slot ?? (book.some((c) => c.slot === 1) ? 2 : 1);
  const categoryId = found?.id ?? newId('trk');
  const event = await uow.emit(events.trackingSet, {
    entityId: categoryId,
    payload: {
      categoryId,
      slot,
      name,
      ...(renamed ? { previousName: found.name } : {}),
      created: found === undefined,
      options: changed.map((o) => ({
        id: o.id,
        name: o.name,
        ...(o.previousName !== undefined ? { previousName: o.previousName } : {}),
        archived: o.archived,
        created: o.created,
      })),
    },
  });
  if (found === undefined) {
    await uow.tx.later(
      'INSERT INTO tracking_categories (org_id, id, slot, name, name_key, created_at, ledger_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [uow.orgId, categoryId, slot, name, searchKey(name), uow.now, event.ledgerId],
    );
  } else {
    await uow.tx.later('UPDATE tracking_categories SET name = ?, name_key = ?, ledger_id = ? WHERE org_id = ? AND id = ?', [
      name,
      searchKey(name),
      event.ledgerId,
      uow.orgId,
      categoryId,
    ]);
  }
  for (const o of changed) {
    const archivedAt = o.archived ? uow.now : null;
    if (o.created) {
      await uow.tx.later(
        `INSERT INTO tracking_options (org_id, id, category_id, position, name, name_key, archived_at, created_at, ledger_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [uow.orgId, o.id, categoryId, o.position, o.name, o.key, archivedAt, uow.now, event.ledgerId],
      );
    } else {
      // An option archived before keeps the date it was archived on.
      await uow.tx.later(
        `UPDATE tracking_options SET name = ?, name_key = ?, archived_at = ${o.archived ? 'COALESCE(archived_at, ?)' : '?'}, ledger_id = ?
         WHERE org_id = ? AND id = ?`,
        [o.name, o.key, archivedAt, event.ledgerId, uow.orgId, o.id],
      );
    }
  }
  const category: TrackingCategory = { id: categoryId, slot, name, key: searchKey(name), ledgerId: event.ledgerId, options };
  return { category: categoryView(category), ledgerId: event.ledgerId };
}
