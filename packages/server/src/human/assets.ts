/**
 * The console's only stylesheet and script, served from /console/assets so that the
 * Content-Security-Policy can forbid every inline style and script.
 */
export const CONSOLE_CSS = `
:root { --fg:#1b1f24; --muted:#57606a; --bg:#f6f8fa; --card:#fff; --line:#d0d7de;
  --accent:#0b57d0; --ok:#116329; --okbg:#dafbe1; --bad:#a40e26; --badbg:#ffebe9; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
.skip { position:absolute; left:-999px; top:0; background:#fff; padding:.5rem 1rem; }
.skip:focus { left:.5rem; z-index:10; }
.top { display:flex; flex-wrap:wrap; gap:.25rem 1.25rem; align-items:center;
  padding:.75rem 1rem; background:#fff; border-bottom:1px solid var(--line); }
.top p { margin:0; }
.brand { font-weight:700; }
.who, .chain { color:var(--muted); font-size:.95rem; }
nav ul { list-style:none; display:flex; flex-wrap:wrap; gap:.25rem 1rem; margin:0; padding:0; }
nav a[aria-current="page"] { font-weight:700; text-decoration-thickness:3px; }
.logout { margin-left:auto; }
main { max-width:60rem; margin:0 auto; padding:1rem; }
main:focus { outline:none; }
h1 { font-size:1.5rem; margin:.5rem 0 1rem; }
h2 { font-size:1.15rem; margin:0 0 .5rem; }
h3 { font-size:1rem; margin:1rem 0 .25rem; color:var(--muted); }
.cards { display:grid; gap:1rem; }
.plain { list-style:none; padding:0; margin:0; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:1rem; }
.summary { font-size:1.05rem; margin:0 0 .75rem; overflow-wrap:anywhere; }
dl.facts, dl.payload { display:grid; grid-template-columns:minmax(7rem, max-content) 1fr;
  gap:.2rem 1rem; margin:0; }
dt { color:var(--muted); }
dd { margin:0; overflow-wrap:anywhere; }
code, .mono { font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size:.9em; }
.hash { word-break:break-all; }
.actions { display:flex; flex-wrap:wrap; gap:1rem; align-items:flex-end; margin-top:1rem; }
.actions form { flex:1 1 14rem; }
.stack { display:flex; flex-direction:column; gap:.35rem; }
.narrow { max-width:24rem; }
label { font-weight:600; }
input, textarea, button { font:inherit; }
input, textarea { padding:.5rem; border:1px solid #8c959f; border-radius:6px; width:100%; }
.check { display:flex; gap:.5rem; align-items:center; }
.check input { width:auto; }
.check label { font-weight:400; }
fieldset { border:1px solid var(--line); border-radius:6px; margin:.5rem 0; }
button { padding:.55rem 1.1rem; border-radius:6px; border:1px solid var(--accent);
  background:var(--accent); color:#fff; cursor:pointer; min-height:44px; }
button.approve { background:var(--ok); border-color:var(--ok); width:100%; }
button.deny { background:var(--bad); border-color:var(--bad); }
button.secondary { background:#fff; color:var(--accent); }
.badge { display:inline-block; padding:0 .5rem; border-radius:999px; font-size:.85rem;
  font-weight:700;
  border:1px solid currentColor; }
.badge.ok, .badge.approved { color:var(--ok); background:var(--okbg); }
.badge.broken, .badge.denied { color:var(--bad); background:var(--badbg); }
.badge.expired { color:var(--muted); }
.badge.overdue { color:var(--bad); background:var(--badbg); }
dl.facts.lead { margin-bottom:.75rem; font-size:1.02rem; }
details.technical { margin-top:.75rem; border-top:1px solid var(--line); padding-top:.5rem; }
details.technical summary { cursor:pointer; color:var(--muted); padding:.6rem 0; }
div.table-wrap { overflow-x:auto; }
table.files { border-collapse:collapse; width:100%; }
table.files th, table.files td { text-align:left; padding:.35rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
.notice { padding:.6rem .9rem; border-radius:6px; background:var(--okbg);
  border:1px solid var(--ok); }
.notice.error { background:var(--badbg); border-color:var(--bad); }
.note, .hint { color:var(--muted); }
/* The owner's view of the books (owner-views.ts). */
.subnav ul { border-bottom:1px solid var(--line); padding-bottom:.4rem; margin-bottom:.5rem; }
.readonly { margin:0 0 1rem; font-size:.9rem; }
.cards.two { grid-template-columns:repeat(auto-fit, minmax(18rem, 1fr)); margin-bottom:1rem; }
.table-wrap { overflow-x:auto; margin:0 0 1rem; }
table { border-collapse:collapse; width:100%; background:var(--card); }
table.narrow-table { max-width:36rem; }
caption { text-align:left; font-weight:700; padding:.4rem 0; }
th, td { text-align:left; padding:.35rem .6rem; border-bottom:1px solid var(--line);
  vertical-align:top; }
th[scope="row"] { font-weight:400; }
.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
tr.overdue { background:var(--badbg); }
tr.overdue th, tr.overdue td { border-bottom-color:#f5c2c7; }
tr.group th { font-weight:700; background:var(--bg); }
tr.total th, tr.total td { font-weight:700; }
tr.grand th, tr.grand td { border-top:2px solid var(--fg); }
.badge.status { color:var(--muted); }
.filter { display:flex; flex-wrap:wrap; gap:.5rem; align-items:center; margin:0 0 1rem; }
.filter input, .filter select { width:auto; }
select { font:inherit; padding:.45rem; border:1px solid #8c959f; border-radius:6px; }
.events li { border-bottom:1px solid var(--line); padding:.5rem 0; }
.events p { margin:0; overflow-wrap:anywhere; }
.event-head { color:var(--muted); font-size:.9rem; }
.caller { font-size:.95rem; }
.caller .label { color:var(--muted); }
.pager { display:flex; gap:1rem; }
td.date { white-space:nowrap; }
.cards.two { align-items:start; }
/* The overview's pictures (charts.ts, owner-charts-views.ts): inline SVG coloured from here, no style attributes. */
/* Two side by side on a wide screen, one a row on a phone: each wide enough for its labels. */
.pictures .cards.two { grid-template-columns:repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); }
.chart h3 { color:var(--fg); margin-top:0; }
.chart .hint { font-size:.9rem; margin:0 0 .5rem; }
.chart-svg { display:block; width:100%; height:auto; overflow:visible; }
.chart-svg text { font-size:12px; fill:var(--muted); font-family:inherit; }
.chart-svg text.sub { font-size:11px; }
.chart-svg line.grid { stroke:#e6e9ed; stroke-width:1; }
.chart-svg line.axis { stroke:var(--fg); stroke-width:1; }
.chart-svg .line path { stroke-width:2.5; stroke-linejoin:round; }
.chart-svg .profit path { stroke-width:2; stroke-dasharray:5 3; }
.chart-svg .dot { stroke:#fff; stroke-width:1; }
.series-0 { --series:#0b57d0; }
.series-1 { --series:#c2410c; }
.series-2 { --series:#116329; }
.series-3 { --series:#7e22ce; }
.series-4 { --series:#a16207; }
.series-5 { --series:#0e7490; }
.series-6 { --series:#be185d; }
.series-7 { --series:#4d5b6a; }
.chart-svg .bars rect, .chart-svg .dot { fill:var(--series); }
.chart-svg .line path, .chart-svg .profit path { stroke:var(--series); }
.legend { display:flex; flex-wrap:wrap; gap:.25rem 1rem; margin:.4rem 0 0; font-size:.9rem; }
.legend li { display:flex; align-items:center; gap:.35rem; }
.swatch { display:inline-block; width:1rem; height:.7rem; border-radius:2px; background:var(--series); }
.swatch.line { height:.25rem; }
.swatch.profit { height:.25rem; background:repeating-linear-gradient(90deg, var(--series) 0 5px, transparent 5px 8px); }
details.figures { margin-top:.5rem; }
details.figures summary { cursor:pointer; color:var(--accent); padding:.5rem 0; min-height:44px; }
table.compact { font-size:.875rem; }
table.compact th, table.compact td { padding:.2rem .4rem; }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0);
  white-space:nowrap; }
@media (max-width: 40rem) {
  dl.facts, dl.payload { grid-template-columns:1fr; }
  dd { margin-bottom:.35rem; }
  .logout { margin-left:0; }
}
`;

export const CONSOLE_JS = `'use strict';
(function () {
  // Times are rendered in UTC by the server; show them in the reader's own zone.
  document.querySelectorAll('time[datetime]').forEach(function (el) {
    var d = new Date(el.getAttribute('datetime'));
    if (isNaN(d.getTime())) return;
    el.title = el.textContent;
    el.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  });
  // On the inbox, look for newly arrived approvals now and then and say so politely.
  var inbox = document.querySelector('[data-inbox]');
  var live = document.getElementById('live');
  if (!inbox || !live) return;
  var known = (inbox.getAttribute('data-ids') || '').split(' ').filter(Boolean);
  setInterval(function () {
    fetch('/console/api/approvals?status=pending', { credentials: 'same-origin' })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (body) {
        if (!body) return;
        var fresh = body.approvals.filter(function (a) { return known.indexOf(a.approvalId) < 0; });
        if (fresh.length === 0) return;
        live.textContent = fresh.length + ' new approval' + (fresh.length > 1 ? 's are' : ' is') +
          ' waiting. Reload the page to see ' + (fresh.length > 1 ? 'them.' : 'it.');
        live.hidden = false;
      })
      .catch(function () { /* offline for a moment: try again next time */ });
  }, 30000);
})();
`;

/** A plain square mark, so browsers do not go looking for /favicon.ico outside the console. */
export const CONSOLE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">
<rect width="16" height="16" rx="3" fill="#0b57d0"/>
<path d="M4 4h8v2H6v2h5v2H6v2H4z" fill="#fff"/></svg>
`;
