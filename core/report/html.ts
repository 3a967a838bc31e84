import { PRNG_NAME } from '../stats/prng.ts';
import type { DrilldownData } from './drilldown.ts';
import { digitsFor, escapeHtml, fmt, fmtCi, fmtP } from './format.ts';
import { TIE_NOTE } from './markdown.ts';
import { HEADLINE, headlineNote, headlineRows, sortedConfigs } from './headline.ts';
import { GLOSSARY } from './glossary.ts';
import { HASH_ORDER_METRICS, TIE_AWARE_METRICS } from '../metrics/per_query.ts';
import { LANGUAGE_METRICS, type StatisticsResult } from './statistics.ts';
import { barsWithCi, cellMatrix, heatColor, heatLegend, stackedShares } from './svg.ts';
import { analysesHtml, type Analyses } from './analysesHtml.ts';

export const RANK_BUCKETS = ['1', '2', '3', '4–5', '6–10', '11–100', '>100'] as const;
export function rankBucket(rank: number): number {
  return rank <= 3 ? rank - 1 : rank <= 5 ? 3 : rank <= 10 ? 4 : rank <= 100 ? 5 : 6;
}

export interface HtmlInput {
  run: string;
  stats: StatisticsResult;
  /** Canonical ranks per configuration (query order). */
  canonicalRanks: Record<string, number[]>;
  drilldown: DrilldownData;
  failed: { config_id: string; error: string }[];
  /** The paper's four analyses (plots and tables); omitted: no such sections. */
  analyses?: Analyses;
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1'];
const RANK_COLORS = ['#1a9850', '#66bd63', '#a6d96a', '#fee08b', '#fdae61', '#f46d43', '#a50026'];

/** The pairwise matrix of one metric: row A, column B, cell = A − B, coloured when Holm-significant. */
function pairwiseMatrix(s: StatisticsResult, metric: string): string {
  // Rows and columns in headline order; a stored row (A, B) is read as A − B or flipped to B − A.
  const order = sortedConfigs(s);
  const at = new Map<string, (typeof s.pairwise)[number]>();
  for (const r of s.pairwise) if (r.metric === metric) at.set(`${r.config_a}\u0000${r.config_b}`, r);
  return cellMatrix(`pairwise-${metric}`, order, order, (i, j) => {
    if (i === j) return { fill: '#f4f4f4', text: '·', title: order[i] };
    const direct = at.get(`${order[i]}\u0000${order[j]}`);
    const r = direct ?? at.get(`${order[j]}\u0000${order[i]}`);
    if (!r) return null;
    const sign = direct ? 1 : -1;
    const diff = sign * r.diff;
    const sig = r.p_holm !== null ? r.p_holm < s.settings.alpha : r.ci_low !== null && (r.ci_low > 0 || r.ci_high! < 0);
    const fill = !sig ? '#e8e8e8' : diff > 0 ? '#8fd19e' : '#f4a3a3';
    const title =
      `${order[i]} − ${order[j]} on ${metric}: ${fmt(diff)}` +
      (r.p_value !== null ? `; b=${direct ? r.b : r.c}, c=${direct ? r.c : r.b}, McNemar p=${fmtP(r.p_value)}, Holm p=${fmtP(r.p_holm)}` : '') +
      `; paired bootstrap CI [${fmt(sign > 0 ? r.ci_low : r.ci_high === null ? null : -r.ci_high)}, ${fmt(sign > 0 ? r.ci_high : r.ci_low === null ? null : -r.ci_low)}]`;
    return { fill, text: `${fmt(diff, 2)}${sig ? '*' : ''}`, title };
  });
}

/** report.html: one self-contained file (inline SVG, CSS, JS and data; nothing fetched). Pure. */
export function buildHtml(input: HtmlInput): string {
  const s = input.stats;
  const e = s.estimates;
  const pct = Math.round((1 - s.settings.alpha) * 100);
  const bars = barsWithCi(
    'exec-bars',
    sortedConfigs(s).map((c) => ({
      label: c,
      series: ['exec@1', 'exec@10'].map((m) => ({ name: m, value: e[c][m].estimate, lo: e[c][m].ci_low, hi: e[c][m].ci_high })),
    })),
    COLORS,
  );
  const ranks = stackedShares(
    'canonical-rank',
    sortedConfigs(s).map((c) => {
      const counts = RANK_BUCKETS.map(() => 0);
      for (const r of input.canonicalRanks[c] ?? []) counts[rankBucket(r)]++;
      return { label: c, counts };
    }),
    RANK_BUCKETS,
    RANK_COLORS,
  );
  const order = sortedConfigs(s);
  const bugHeat = (id: string, prefix: string, what: string) =>
    cellMatrix(id, order, s.bug_types, (i, j) => {
      const st = e[order[i]][`${prefix}:${s.bug_types[j]}`];
      return {
        fill: heatColor(st?.estimate ?? null),
        text: fmt(st?.estimate ?? null, 2),
        sub: st && st.ci_low !== null ? `[${fmt(st.ci_low, 2)}, ${fmt(st.ci_high, 2)}]` : '',
        title: `${order[i]} / ${s.bug_types[j]}: ${what} ${fmtCi(st)} over ${st?.support ?? 0} distractors`,
      };
    }, { twoLines: true });
  const heat = bugHeat('deception-heatmap', 'bug_outscore', 'scores above its canonical');
  const tieHeat = bugHeat('tie-heatmap', 'bug_tie', 'ties its canonical');
  const domainHeat = cellMatrix('domain-heatmap', order, s.domains, (i, j) => {
    const st = e[order[i]][`domain_deception:${s.domains[j]}`];
    return {
      fill: heatColor(st?.estimate ?? null),
      text: fmt(st?.estimate ?? null, 2),
      sub: st && st.ci_low !== null ? `[${fmt(st.ci_low, 2)}, ${fmt(st.ci_high, 2)}]` : '',
      title: `${order[i]} / ${s.domains[j]}: ${fmtCi(st)} over ${st?.support ?? 0} queries`,
    };
  }, { twoLines: true });
  const headline = `<table class="t" id="headline"><thead><tr><th>config</th>${HEADLINE.map((m) => `<th>${escapeHtml(m)}</th>`).join('')}</tr></thead><tbody>${headlineRows(s)
    .map(
      (r) =>
        `<tr data-config="${escapeHtml(r.config)}"${r.winner ? ' class="winner"' : ''}><td>${r.winner ? '<span class="star" title="winner on tie-aware exec@1, separated from every other configuration">★</span> ' : ''}(${r.letter}) ${escapeHtml(r.config)}</td>${r.cells
          .map((c) => `<td>${escapeHtml(c.text)}${c.beats.length ? `<sup>${escapeHtml(c.beats.join(''))}</sup>` : ''}</td>`)
          .join('')}</tr>`,
    )
    .join('')}</tbody></table>`;
  const pointTable = (id: string, metrics: readonly string[]) =>
    `<table class="t" id="${id}"><thead><tr><th>config</th>${metrics.map((m) => `<th>${escapeHtml(m)}</th>`).join('')}</tr></thead><tbody>${order
      .map((c) => `<tr><td>${escapeHtml(c)}</td>${metrics.map((m) => `<td>${escapeHtml(fmt(e[c][m]?.estimate, digitsFor(m)))}</td>`).join('')}</tr>`)
      .join('')}</tbody></table>`;
  const glossary = `<dl id="glossary">${GLOSSARY.map((d) => `<dt><code>${escapeHtml(d.name)}</code></dt><dd>${escapeHtml(d.text)} <span class="src">${escapeHtml(d.code)}</span></dd>`).join('')}</dl>`;
  // JSON inside <script>: escape "<" so a snippet containing "</script>" cannot end the element.
  const data = JSON.stringify(input.drilldown).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ExecRetrieval report — ${escapeHtml(input.run)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
.t{border-collapse:collapse;font-size:12px}.t td,.t th{border:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap}.t td:first-child,.t th:first-child{text-align:left}
.note{color:#555;max-width:900px}.scroll{overflow-x:auto}
pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}
.pass{color:#fff;background:#2e7d32;padding:1px 6px;border-radius:3px}.fail{color:#fff;background:#c62828;padding:1px 6px;border-radius:3px}
.winner td{font-weight:600;background:#fff8e1}.star{color:#e6a100}sup{color:#2e7d32;font-weight:600}
dl#glossary dt{margin-top:8px}dl#glossary dd{margin-left:16px;max-width:900px}.src{color:#888;font-size:11px}
.tie{color:#fff;background:#8d6e63;padding:0 4px;border-radius:3px;font-size:10px}.outs span{margin-right:2px}.op{color:#2e7d32}.of{color:#c62828;font-weight:700}
.add{background:#e6ffed}.del{background:#ffeef0}
.analysis{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;margin-bottom:12px}
#dd-hits tr{cursor:pointer}#dd-hits tr.sel{outline:2px solid #4e79a7}
svg[data-legend],svg[data-chart]{max-width:100%;height:auto}select,input{max-width:100%}#dd-view{overflow-x:auto}
@media (max-width:600px){body{margin:12px}h1{font-size:18px;overflow-wrap:anywhere}}
</style></head><body>
<h1>ExecRetrieval report — ${escapeHtml(input.run)}</h1>
<p class="note">${s.n_queries} queries × ${s.configs.length} configuration${s.configs.length === 1 ? '' : 's'}. Intervals are ${pct}% query-level bootstrap percentile intervals
(${s.settings.replicates} replicates, seed ${s.settings.seed}, ${escapeHtml(PRNG_NAME)}). A retrieved snippet passes when it passes all of the query's
tests as executed by the oracle. ${input.failed.length ? `Failed configurations: ${input.failed.map((f) => escapeHtml(`${f.config_id} (${f.error})`)).join('; ')}.` : ''}</p>
<h2>Headline</h2><div class="scroll">${headline}</div><p class="note">${escapeHtml(headlineNote(s))}</p><p class="note">${escapeHtml(TIE_NOTE)}</p>
<h2>All metrics</h2><p class="note">Hash order (the ranking as returned):</p><div class="scroll">${pointTable('all-hash', HASH_ORDER_METRICS)}</div>
<p class="note">Tie-aware expectation over every order of each tied group:</p><div class="scroll">${pointTable('all-ta', TIE_AWARE_METRICS)}</div>
<h2>exec@1 and exec@10 per configuration</h2><div class="scroll">${bars}</div>
<h2>Where the canonical ranks</h2><p class="note">Share of queries (x axis, %) by the rank of the canonical implementation in the full ranking (colour: rank bucket; hash-order ranks).</p><div class="scroll">${ranks}</div>
<h2>Deception by bug type</h2><p class="note">bug_outscore: share of each bug type's distractors that score strictly above their own canonical.</p><div class="scroll">${heat}</div>${heatLegend('bug', 'share of distractors; second line: the ' + pct + '% interval')}
<p class="note">bug_tie: share with exactly their canonical's score (ordered by the hash tie-break).</p><div class="scroll">${tieHeat}</div>${heatLegend('tie', 'share of distractors; second line: the ' + pct + '% interval')}
<h2>Deception by domain</h2><p class="note">Share of queries where an own distractor scores strictly above the canonical.</p><div class="scroll">${domainHeat}</div>${heatLegend('domain', 'share of queries; second line: the ' + pct + '% interval')}
${languageBlock(s, order)}
<h2>Pairwise significance</h2><p class="note">Row − column. Binary exec@k: exact McNemar on discordant queries, Holm-adjusted across all pairs;
* = significant at ${s.settings.alpha}; green: row better, red: column better. Hover a cell for b, c and p.</p>
<h3>exec@1</h3><div class="scroll">${pairwiseMatrix(s, 'exec@1')}</div>
<h3>exec@10</h3><div class="scroll">${pairwiseMatrix(s, 'exec@10')}</div>
${input.analyses ? analysesHtml(input.analyses) : ''}
<h2>Glossary</h2>${glossary}
<h2>Per-query drill-down</h2>
<p class="note">Link to a view: <code>report.html#q=&lt;query_id&gt;&amp;config=&lt;config_id&gt;</code>. "A passes, B fails": only the queries where
configuration A's rank-1 snippet passes and B's fails (the discordant queries b of the exec@1 McNemar test). <span class="tie">tie</span> marks a snippet whose
score exactly equals a neighbour's: their order is the hash tie-break.</p>
<p><input id="dd-filter" placeholder="filter queries (id or text)" size="40"> <select id="dd-query"></select> <select id="dd-config"></select>
<label><input type="checkbox" id="dd-disc"> A passes, B fails at rank 1:</label> A <select id="dd-a"></select> B <select id="dd-b"></select> <span id="dd-count"></span>
<a id="dd-link" href="#">link to this view</a></p>
<div id="dd-view"><p id="dd-text"></p><table class="t" id="dd-hits"></table><div id="dd-tests"></div><pre id="dd-code"></pre><div id="dd-diffs"></div></div>
<script type="application/json" id="dd-data">${data}</script>
<script>
(function () {
  var D = JSON.parse(document.getElementById('dd-data').textContent);
  var qSel = document.getElementById('dd-query'), cSel = document.getElementById('dd-config'), filt = document.getElementById('dd-filter');
  var disc = document.getElementById('dd-disc'), aSel = document.getElementById('dd-a'), bSel = document.getElementById('dd-b');
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]; }); }
  function pass1(ci, qi) { var h = D.hits[ci][qi]; return h.length > 0 && h[1] === 1; }
  function fillQueries(keep) {
    var f = filt.value.toLowerCase(), a = +aSel.value, b = +bSel.value, n = 0; qSel.innerHTML = '';
    D.queries.forEach(function (q, i) {
      if (f && (q.id + ' ' + q.text).toLowerCase().indexOf(f) < 0) return;
      if (disc.checked && !(pass1(a, i) && !pass1(b, i))) return;
      var o = document.createElement('option'); o.value = i; o.textContent = q.id + ' — ' + q.text.slice(0, 80); qSel.appendChild(o); n++;
    });
    if (keep !== undefined && qSel.querySelector('option[value="' + keep + '"]')) qSel.value = String(keep);
    document.getElementById('dd-count').textContent = disc.checked ? n + ' queries' : '';
    render();
  }
  D.configs.forEach(function (c, i) {
    [cSel, aSel, bSel].forEach(function (sel) { var o = document.createElement('option'); o.value = i; o.textContent = c; sel.appendChild(o); });
  });
  if (D.configs.length > 1) bSel.value = '1';
  function setHash() {
    var q = D.queries[+qSel.value]; if (!q) return;
    var h = '#q=' + encodeURIComponent(q.id) + '&config=' + encodeURIComponent(D.configs[+cSel.value]);
    document.getElementById('dd-link').setAttribute('href', h);
    // Only a reader's own choice rewrites the address: on open it stays as opened, so a plain open (or a reload)
    // stays at the headline instead of jumping to the drill-down.
    if (live && location.hash !== h) history.replaceState(null, '', h);
  }
  function fromHash() {
    var p = {}; location.hash.replace(/^#/, '').split('&').forEach(function (kv) { var i = kv.indexOf('='); if (i > 0) p[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); });
    var ci = D.configs.indexOf(p.config), qi = -1;
    D.queries.forEach(function (q, i) { if (q.id === p.q) qi = i; });
    if (ci >= 0) cSel.value = String(ci);
    if (qi >= 0) { filt.value = ''; disc.checked = false; fillQueries(qi); document.getElementById('dd-view').scrollIntoView(); }
  }
  function render() {
    var qi = +qSel.value, ci = +cSel.value, q = D.queries[qi];
    var hitsT = document.getElementById('dd-hits'), code = document.getElementById('dd-code'), diffs = document.getElementById('dd-diffs'), tests = document.getElementById('dd-tests');
    if (!q) { document.getElementById('dd-text').textContent = 'no query matches'; hitsT.innerHTML = ''; diffs.innerHTML = ''; code.textContent = ''; tests.innerHTML = ''; return; }
    document.getElementById('dd-text').innerHTML = '<b>' + esc(q.id) + '</b> (' + esc(q.fn) + ', ' + esc(q.domain || 'no domain') + '): ' + esc(q.text);
    var own = {}; q.canonical.forEach(function (c) { own[c] = 'canonical'; }); q.distractors.forEach(function (d) { own[d.c] = 'own distractor (' + (d.bug || '?') + ')'; });
    var h = D.hits[ci][qi], rows = '<tr><th>rank</th><th>corpus_id</th><th>score</th><th>tests</th><th>per-test outcomes</th><th>role</th></tr>';
    for (var k = 0; k < h.length; k += 4) {
      var outs = D.outcomes[qi + ':' + h[k]] || [];
      var per = outs.map(function (o) { return '<span class="' + (o === 'pass' ? 'op' : 'of') + '" title="' + esc(o) + '">' + (o === 'pass' ? '✓' : '✗') + '</span>'; }).join('');
      rows += '<tr data-c="' + h[k] + '" class="dd-hit"><td>' + (k / 4 + 1) + '</td><td>' + esc(D.corpus[h[k]].id) + '</td><td>' + h[k + 2].toFixed(4) +
        (h[k + 3] ? ' <span class="tie" title="exactly the score of a neighbour: ordered by the hash tie-break">tie</span>' : '') + '</td><td>' +
        (h[k + 1] ? '<span class="pass">pass</span>' : '<span class="fail">fail</span>') + '</td><td class="outs">' + per + '</td><td>' + esc(own[h[k]] || 'other query') + '</td></tr>';
    }
    hitsT.innerHTML = rows; code.textContent = ''; tests.innerHTML = '';
    Array.prototype.forEach.call(hitsT.querySelectorAll('tr.dd-hit'), function (tr) {
      tr.addEventListener('click', function () {
        Array.prototype.forEach.call(hitsT.querySelectorAll('tr.sel'), function (x) { x.classList.remove('sel'); });
        var c = +tr.getAttribute('data-c');
        tr.classList.add('sel'); code.textContent = D.corpus[c].code;
        var outs = D.outcomes[qi + ':' + c] || [];
        tests.innerHTML = '<table class="t" id="dd-test-table"><tr><th>test</th><th>outcome</th></tr>' + outs.map(function (o, i) {
          return '<tr><td>' + (i + 1) + '</td><td style="text-align:left">' + esc(o) + '</td></tr>'; }).join('') + '</table>';
      });
    });
    diffs.innerHTML = q.distractors.map(function (d) {
      return '<h4>canonical vs ' + esc(D.corpus[d.c].id) + ' (' + esc(d.bug || '?') + ')</h4><pre class="dd-diff">' + d.diff.split('\\n').map(function (l) {
        var cls = l.charAt(0) === '+' ? 'add' : l.charAt(0) === '-' ? 'del' : ''; return '<span class="' + cls + '">' + esc(l) + '</span>';
      }).join('\\n') + '</pre>';
    }).join('');
    setHash();
  }
  filt.addEventListener('input', function () { fillQueries(); });
  [disc, aSel, bSel].forEach(function (el) { el.addEventListener('change', function () { fillQueries(); }); });
  qSel.addEventListener('change', render); cSel.addEventListener('change', render);
  window.addEventListener('hashchange', fromHash);
  var live = false, opened = location.hash;
  fillQueries();
  if (opened.indexOf('q=') >= 0) fromHash();
  live = true;
  document.body.setAttribute('data-ready', '1');
})();
</script>
</body></html>
`;
}

/** Which language each number is about: absent for a Python-only benchmark; with several, each language's block
 * (its queries only, with intervals) beside the pooled value (markdown.ts prints the same tables). */
function languageBlock(s: StatisticsResult, order: readonly string[]): string {
  if (!s.languages) return '';
  const names = escapeHtml(s.languages.join(', '));
  if (s.languages.length === 1) return `<p class="note">Language: ${names} (every query).</p>`;
  const cols = [...s.languages, 'pooled'];
  const table = (m: string) => `<table class="t"><tr><th>config</th>${cols.map((l) => `<th>${escapeHtml(l)}</th>`).join('')}</tr>${order
    .map((c) => `<tr><td>${escapeHtml(c)}</td>${cols.map((l) => `<td>${escapeHtml(fmtCi(s.estimates[c][l === 'pooled' ? m : `lang:${l}:${m}`]))}</td>`).join('')}</tr>`).join('')}</table>`;
  return `<h2>By language</h2><p class="note">Languages: ${names}. Each metric over one language's queries (with its interval); "pooled" is every query, as in the headline.</p>${LANGUAGE_METRICS.map((m) => `<h3>${escapeHtml(m)}</h3><div class="scroll">${table(m)}</div>`).join('')}`;
}
