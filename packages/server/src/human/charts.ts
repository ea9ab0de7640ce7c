import { formatCents } from '../money.js';
import { html, type Html } from './html.js';

/**
 * Server-drawn charts as inline SVG: pure functions from integer cents to markup, every text
 * escaped by `html`. No script, no style attribute (the console's CSP forbids inline style):
 * colours come from classes in the console stylesheet (.series-0 … .series-7). The viewBox is
 * narrow (CHART_WIDTH) so that at a phone's width (a card about 320 px wide) the 12-unit labels are still 10 px or more, and the
 * svg scales to its box (width 100%). Each chart is role="img" with a <title> and <desc>; the
 * figures themselves go in a table beside it (the callers), which is what a screen reader reads.
 *
 * Money stays in integer cents: the axis runs between whole multiples of a "nice" step of cents
 * (1, 2 or 5 × a power of ten), and only pixel positions are fractions.
 */

export const CHART_WIDTH = 360;
export const CHART_HEIGHT = 220;
const LEFT = 46;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 36;
const PLOT_W = CHART_WIDTH - LEFT - RIGHT;
const PLOT_H = CHART_HEIGHT - TOP - BOTTOM;
/** Series colours in the stylesheet; a chart with more series reuses them. */
export const SERIES_CLASSES = 8;

export interface Scale {
  /** The axis' bottom, top and tick step, whole cents; lo ≤ 0 ≤ hi, both multiples of step. */
  readonly lo: number;
  readonly hi: number;
  readonly step: number;
}

/** a mod b, never negative (b > 0). */
const mod = (a: number, b: number): number => ((a % b) + b) % b;

/**
 * An axis over `values` and zero with about `ticks` steps: the step is the smallest 1, 2 or 5 ×
 * 10^k cents that covers the span in that many steps, and the ends are the multiples of it just
 * outside the values. All of it in whole cents.
 */
export function niceScale(values: readonly number[], ticks = 4): Scale {
  let min = 0;
  let max = 0;
  for (const v of values) {
    if (!Number.isSafeInteger(v)) throw new Error(`niceScale: ${v} is not a whole number of cents`);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // Nothing to show: $0 to $100, so the frame still has an axis with round labels.
  if (min === max) max = 10_000;
  const span = max - min;
  // The least step with span ≤ ticks × step: ceil(span / ticks), in integers.
  const least = Math.floor((span + ticks - 1) / ticks);
  let power = 1;
  while (power * 10 <= least) power *= 10;
  const step = [1, 2, 5, 10].map((n) => n * power).find((s) => s >= least) ?? 10 * power;
  return { lo: min - mod(min, step), hi: max + mod(-max, step), step };
}

/** The tick values of a scale, bottom to top. */
export function ticksOf(s: Scale): number[] {
  const out: number[] = [];
  for (let v = s.lo; v <= s.hi; v += s.step) out.push(v);
  return out;
}

const commas = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * A tick's label, short enough for a phone: "$40k", "$2.5k", "$1.2M", "$300", "$0.50". The unit is
 * chosen from the step so every label of one axis is exact and alike.
 */
export function axisLabel(cents: number, step: number): string {
  if (cents === 0) return '$0';
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  if (step % 10_000_000 === 0 && step >= 50_000_000) {
    // Tenths of a million dollars (10 000 000 cents each).
    const tenths = abs / 10_000_000;
    return `${sign}$${Math.floor(tenths / 10)}${tenths % 10 ? `.${tenths % 10}` : ''}M`;
  }
  if (step % 100_000 === 0) return `${sign}$${commas(abs / 100_000)}k`;
  if (step % 10_000 === 0 && step >= 50_000) {
    const tenths = abs / 10_000;
    return `${sign}$${commas(Math.floor(tenths / 10))}${tenths % 10 ? `.${tenths % 10}` : ''}k`;
  }
  if (step % 100 === 0) return `${sign}$${commas(abs / 100)}`;
  return formatCents(cents);
}

/** Pixel positions, rounded to a tenth so the markup stays short. */
const px = (n: number): string => String(Math.round(n * 10) / 10);

/** The y of `cents` on the plot. */
const yOf = (s: Scale, cents: number): number => TOP + ((s.hi - cents) * PLOT_H) / (s.hi - s.lo);

export interface Category {
  /** Under the axis (short: "Nov", "wk 1"). */
  readonly label: string;
  /** A second line under it, or null ("2025" under the first month and every January). */
  readonly sub: string | null;
  /** In full, for the hover title of each mark ("November 2025"). */
  readonly full: string;
}

export interface Series {
  readonly name: string;
  readonly values: readonly number[];
}

export interface ChartText {
  /** Becomes the svg's <title> and (with `id`) its accessible name. */
  readonly title: string;
  /** The <desc>: what the picture shows, in a sentence or two of figures. */
  readonly desc: string;
  /** Unique on the page: the title's and desc's ids derive from it. */
  readonly id: string;
}

function frame(t: ChartText, s: Scale, categories: readonly Category[], body: Html): Html {
  const grid = ticksOf(s).map((v) => {
    const y = px(yOf(s, v));
    return html`<line class="${v === 0 ? 'axis' : 'grid'}" x1="${LEFT}" x2="${CHART_WIDTH - RIGHT}" y1="${y}" y2="${y}"/><text class="tick" x="${
      LEFT - 5
    }" y="${y}" dy="0.32em" text-anchor="end">${axisLabel(v, s.step)}</text>`;
  });
  const band = PLOT_W / Math.max(categories.length, 1);
  // Every label when they fit (a three-letter month is about 22 units at 12 units of type), else every other one.
  const every = band >= 24 ? 1 : 2;
  const labels = categories.map((c, i) => {
    if (i % every !== 0 && c.sub === null) return html``;
    const x = px(LEFT + band * (i + 0.5));
    const sub = c.sub === null ? null : html`<text class="tick sub" x="${x}" y="${CHART_HEIGHT - 6}" text-anchor="middle">${c.sub}</text>`;
    return html`<text class="tick" x="${x}" y="${CHART_HEIGHT - BOTTOM + 15}" text-anchor="middle">${c.label}</text>${sub}`;
  });
  return html`<svg class="chart-svg" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" width="100%" role="img" aria-labelledby="${t.id}-title ${
    t.id
  }-desc" focusable="false" xmlns="http://www.w3.org/2000/svg"><title id="${t.id}-title">${t.title}</title><desc id="${t.id}-desc">${
    t.desc
  }</desc>${grid}${labels}${body}</svg>`;
}

const seriesClass = (i: number): string => `series-${i % SERIES_CLASSES}`;

/** A polyline with a dot on each point; each dot's hover title names the figure. */
function line(s: Scale, categories: readonly Category[], series: Series, i: number, kind: 'line' | 'profit'): Html {
  const band = PLOT_W / Math.max(categories.length, 1);
  const points = series.values.map((v, k) => [LEFT + band * (k + 0.5), yOf(s, v)] as const);
  const d = points.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${px(x)} ${px(y)}`).join(' ');
  const dots = points.map(
    ([x, y], k) =>
      html`<circle class="dot" cx="${px(x)}" cy="${px(y)}" r="3"><title>${series.name}, ${categories[k]?.full ?? ''}: ${formatCents(
        series.values[k] ?? 0,
      )}</title></circle>`,
  );
  return html`<g class="${kind} ${seriesClass(i)}"><path d="${d}" fill="none"/>${dots}</g>`;
}

/** One line per series over the categories (cash per bank account by month). */
export function lineChart(t: ChartText, categories: readonly Category[], series: readonly Series[]): Html {
  const s = niceScale(series.flatMap((x) => x.values));
  return frame(t, s, categories, html`${series.map((x, i) => line(s, categories, x, i, 'line'))}`);
}

/**
 * Side-by-side columns per category, one per series, from zero up (or down, for a negative
 * figure); with `overlay`, a line with dots drawn over them (net profit over income and expenses).
 */
export function columnChart(t: ChartText, categories: readonly Category[], series: readonly Series[], overlay?: Series): Html {
  const s = niceScale([...series.flatMap((x) => x.values), ...(overlay?.values ?? [])]);
  const band = PLOT_W / Math.max(categories.length, 1);
  const group = band * 0.72;
  const width = group / Math.max(series.length, 1);
  const zero = yOf(s, 0);
  const columns = series.map((x, i) => {
    const rects = x.values.map((v, k) => {
      const left = LEFT + band * k + (band - group) / 2 + width * i;
      const y = yOf(s, v);
      const top = Math.min(y, zero);
      // A zero still shows as a hairline, so an empty week reads as nothing rather than missing.
      const height = Math.max(Math.abs(zero - y), 0.5);
      return html`<rect x="${px(left)}" y="${px(top)}" width="${px(Math.max(width - 1, 1))}" height="${px(height)}"><title>${x.name}, ${
        categories[k]?.full ?? ''
      }: ${formatCents(v)}</title></rect>`;
    });
    return html`<g class="bars ${seriesClass(i)}">${rects}</g>`;
  });
  const over = overlay ? line(s, categories, overlay, series.length, 'profit') : null;
  return frame(t, s, categories, html`${columns}${over}`);
}

/** The legend under a chart, in HTML so its text is full size on a phone. */
export function legend(names: readonly { readonly name: string; readonly kind: 'line' | 'bar' | 'profit' }[]): Html {
  const items = names.map((n, i) => html`<li><span class="swatch ${n.kind} ${seriesClass(i)}" aria-hidden="true"></span>${n.name}</li>`);
  return html`<ul class="legend plain">${items}</ul>`;
}

/** A cell of money for a figures table: the dollars, and the cents for a test or a script to read. */
export const centsCell = (cents: number): Html => html`<td class="num" data-cents="${cents}">${formatCents(cents)}</td>`;

/** Nothing to draw: say so rather than draw an empty frame. */
export const noFigures = (text: string): Html => html`<p class="hint">${text}</p>`;
