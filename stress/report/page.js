// page.js -- runs in the browser: draws the report embedded in the page
// (<script type="application/json" id="report-data">) with uPlot (inlined
// before this script).  A plain script, not a module: file:// pages cannot
// import modules in every browser, and the page must work opened from disk.
//
// Two kinds of report:
//   - one run: the monitor's JSON report (docs/report-schema.md);
//   - a comparison (npm run stress:compare; docs/html-report.md): paths, each
//     with its runs (monitor reports), and the comparison table.
// Every table cell that shows a number from the report carries it unformatted
// in data-value, so a reader (and tests/report) can check what is shown.
(function () {
  'use strict';

  var PALETTE = ['#1f5fbf', '#c2410c', '#15803d', '#7e22ce', '#be123c', '#0e7490', '#a16207', '#4d7c0f'];
  var WARMUP_FILL = 'rgba(250, 204, 21, 0.18)';
  var MIB = 1048576;

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    (children || []).forEach(function (c) { e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  function grouped(v, digits) {
    return v.toLocaleString('en-US', { minimumFractionDigits: digits || 0, maximumFractionDigits: digits || 0 });
  }

  // Bytes as the text report shows them: MiB, KiB below 1 MiB.
  function bytes(v) {
    if (!isNum(v)) return 'n/a';
    if (Math.abs(v) >= MIB) return grouped(v / MIB, 2) + ' MiB';
    if (Math.abs(v) >= 1024) return grouped(v / 1024, 2) + ' KiB';
    return grouped(v, 0) + ' B';
  }
  function amount(v, unit) { return unit === 'bytes' ? bytes(v) : (isNum(v) ? grouped(v, Math.round(v) === v ? 0 : 2) : 'n/a'); }
  // What the x axis counts (run.unit, report schema 3): DAL queries, or a
  // --target's iterations.  Set once from the report being drawn.
  var WORDS = {
    query: { one: 'query', many: 'queries', q: 'q' },
    iteration: { one: 'iteration', many: 'iterations', q: 'it' },
  };
  var W = WORDS.query;
  function useUnit(report) { W = WORDS[report && report.run && report.run.unit] || WORDS.query; }
  // Slope as the text report shows it: bytes per query for byte layers,
  // objects per million queries for count layers.
  function slope(perMq, unit) {
    if (!isNum(perMq)) return 'n/a';
    return unit === 'bytes' ? grouped(perMq / 1e6, 4) + ' B/' + W.q : grouped(perMq, 2) + '/M' + W.q;
  }
  function ns(v) {
    if (!isNum(v)) return 'n/a';
    if (v >= 1e6) return grouped(v / 1e6, 3) + ' ms';
    if (v >= 1e3) return grouped(v / 1e3, 2) + ' µs';
    return grouped(v, 0) + ' ns';
  }

  // A table: columns [{title, cls}], rows of cells {text, value, cls}.
  function table(id, columns, rows) {
    var head = el('tr', null, columns.map(function (c) { return el('th', { class: c.cls }, [c.title]); }));
    var body = rows.map(function (r) {
      return el('tr', null, r.map(function (c) {
        return el('td', { class: c.cls, 'data-value': c.value === undefined ? undefined : String(c.value) }, [c.text]);
      }));
    });
    return el('table', { id: id }, [el('thead', null, [head]), el('tbody', null, body)]);
  }
  function cell(value, fmt, cls) { return { text: fmt(value), value: value === null ? 'null' : value, cls: cls }; }
  function textCell(t, cls) { return { text: t, cls: cls || 'text' }; }

  function metricUnit(report, name) {
    var m = (report.metrics || []).filter(function (x) { return x.name === name; })[0];
    return m ? m.unit : 'count';
  }

  // ---- charts --------------------------------------------------------------

  var chartCount = 0;
  function chartWidth(host) { return Math.max(320, Math.min(560, (host.clientWidth || 560))); }

  // Shades x < warmupEnd (the warm-up) before the series are drawn.
  function warmupHook(warmupEnd) {
    return function (u) {
      if (!isNum(warmupEnd) || warmupEnd <= 0) return;
      var ctx = u.ctx, x0 = u.valToPos(u.scales.x.min, 'x', true);
      var x1 = u.valToPos(Math.min(warmupEnd, u.scales.x.max), 'x', true);
      if (x1 <= x0) return;
      ctx.save();
      ctx.fillStyle = WARMUP_FILL;
      ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
      ctx.restore();
    };
  }

  // The least-squares line over the post-warm-up samples: the slope is the
  // monitor's (summary.slope_per_mquery); a least-squares line passes through
  // the mean point, which fixes its intercept.
  function fittedLine(points, slopePerMq) {
    if (!isNum(slopePerMq) || points.length === 0) return null;
    var mx = 0, my = 0;
    points.forEach(function (p) { mx += p[0]; my += p[1]; });
    mx /= points.length; my /= points.length;
    var k = slopePerMq / 1e6;
    return function (x) { return my + k * (x - mx); };
  }

  // One chart of metric `metric` against queries, a line per run.
  // runs: [{label, report}]; the first run's warm-up boundary is shaded.
  function layerChart(host, title, metric, unit, runs) {
    var xs = {};
    runs.forEach(function (r) { r.report.samples.forEach(function (s) { xs[s.queries] = true; }); });
    var x = Object.keys(xs).map(Number).sort(function (a, b) { return a - b; });
    var idx = {};
    x.forEach(function (q, i) { idx[q] = i; });
    var data = [x], series = [{ label: W.many, value: function (u, v) { return v === null ? '' : grouped(v); } }];
    var colors = [];
    runs.forEach(function (r, i) {
      var color = PALETTE[i % PALETTE.length];
      var line = x.map(function () { return null; }), fit = x.map(function () { return null; });
      var post = [];
      r.report.samples.forEach(function (s) {
        if (isNum(s[metric])) {
          line[idx[s.queries]] = s[metric];
          if (!s.warmup) post.push([s.queries, s[metric]]);
        }
      });
      var sum = r.report.summary && r.report.summary[metric];
      var f = fittedLine(post, sum && sum.slope_per_mquery);
      if (f) post.forEach(function (p) { fit[idx[p[0]]] = f(p[0]); });
      data.push(line, fit);
      colors.push(color);
      series.push({ label: r.label, stroke: color, width: 2, spanGaps: true, points: { show: post.length < 40 } });
      // The fit in the run's colour, translucent: tests/report tells the data's opaque pixels from it.
      series.push({ label: r.label + ' fit', stroke: color + '99', width: 1.5, dash: [6, 4], spanGaps: true, points: { show: false } });
    });
    var warmupEnd = runs[0].report.run && runs[0].report.run.warmup_end_queries;
    // Byte axes in the largest unit the values reach (a 100 KiB layer in MiB reads 0.10, 0.10, 0.11).
    var top = 0;
    data.slice(1).forEach(function (d) { d.forEach(function (v) { if (isNum(v)) top = Math.max(top, Math.abs(v)); }); });
    var div = unit !== 'bytes' ? 1 : top >= MIB ? MIB : top >= 1024 ? 1024 : 1;
    var yName = unit !== 'bytes' ? 'count' : div === MIB ? 'MiB' : div === 1024 ? 'KiB' : 'bytes';
    var box = el('div', { class: 'chart', 'data-chart': 'layer', 'data-metric': metric, 'data-colors': colors.join(' ') });
    host.appendChild(box);
    new uPlot({
      title: title,
      width: chartWidth(host),
      height: 240,
      scales: { x: { time: false } },
      legend: { live: false },
      series: series,
      axes: [
        { label: W.many, values: function (u, v) { return v.map(function (q) { return q >= 1e6 ? grouped(q / 1e6, 1) + 'M' : grouped(q); }); } },
        { label: yName, size: 64,
          values: function (u, v) { return v.map(function (y) { return div === 1 ? grouped(y) : grouped(y / div, 2); }); } },
      ],
      hooks: { drawClear: [warmupHook(warmupEnd)] },
    }, data, box);
    box.appendChild(el('div', { class: 'legend-note' }, ['shaded: warm-up (' + W.many + ' < ' + grouped(warmupEnd || 0) + '); dashed: least-squares fit after warm-up']));
    chartCount++;
  }

  // Log axes get a tick at every 1-2-5 step; only powers of ten are labelled.
  function logLabels(u, v) {
    return v.map(function (x) { var e = Math.log10(x); return Math.abs(e - Math.round(e)) < 1e-9 ? ns(x) : ''; });
  }

  // Latency distribution: the monitor's histogram (latency_histogram.buckets,
  // [low_ns, high_ns, count]) as a step outline on a log axis, or, for a
  // report without one, its percentiles.
  function latencyChart(host, title, runs) {
    var withHist = runs.filter(function (r) { return r.report.latency_histogram && r.report.latency_histogram.buckets.length; });
    var box = el('div', { class: 'chart', 'data-chart': 'latency' });
    host.appendChild(box);
    var colors = [];
    var data, series, scales, axes;
    if (withHist.length === runs.length) {
      var xs = {};
      runs.forEach(function (r) { r.report.latency_histogram.buckets.forEach(function (b) { xs[Math.max(b[0], 1)] = true; xs[b[1] + 1] = true; }); });
      var x = Object.keys(xs).map(Number).sort(function (a, b) { return a - b; });
      var idx = {};
      x.forEach(function (v, i) { idx[v] = i; });
      data = [x];
      series = [{ label: 'latency', value: function (u, v) { return v === null ? '' : ns(v); } }];
      runs.forEach(function (r, i) {
        var total = r.report.latency_ns.count || 1, y = x.map(function () { return 0; });
        // Share of queries per eighth of an octave: on a log axis a bin's
        // area is then its share, whatever its width (bins are 1/8 octave
        // above 128 ns, 16 ns below; the first and last end at min and max).
        r.report.latency_histogram.buckets.forEach(function (b) {
          var lo = Math.max(b[0], 1), octaves = Math.log2((b[1] + 1) / lo);
          y[idx[lo]] = (b[2] / total) * 100 / (octaves * 8);
        });
        data.push(y);
        var color = PALETTE[i % PALETTE.length];
        colors.push(color);
        series.push({ label: r.label, stroke: color, width: 1.5, fill: color + '33', paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } });
      });
      scales = { x: { time: false, distr: 3 } };
      axes = [{ label: 'latency (log scale)', values: logLabels },
        { label: '% of ' + W.many + ' per 1/8 octave', size: 64, values: function (u, v) { return v.map(function (y) { return y.toPrecision(2); }); } }];
    } else {
      var keys = [['p50', 50], ['p97_5', 97.5], ['p99', 99], ['max', 100]];
      data = [keys.map(function (k) { return k[1]; })];
      series = [{ label: 'percentile' }];
      runs.forEach(function (r, i) {
        data.push(keys.map(function (k) { return isNum(r.report.latency_ns[k[0]]) ? r.report.latency_ns[k[0]] : null; }));
        var color = PALETTE[i % PALETTE.length];
        colors.push(color);
        series.push({ label: r.label, stroke: color, width: 2, points: { show: true, size: 7 } });
      });
      scales = { x: { time: false }, y: { distr: 3 } };
      axes = [{ label: 'percentile' }, { label: 'latency (log scale)', size: 72, values: logLabels }];
    }
    box.setAttribute('data-colors', colors.join(' '));
    new uPlot({ title: title, width: chartWidth(host), height: 240, scales: scales, axes: axes, series: series, legend: { live: false } }, data, box);
    chartCount++;
  }

  // ---- one run ---------------------------------------------------------------

  function overallBadge(v) {
    var o = v.overall || 'error';
    return el('span', { class: 'overall ' + o.replace(/ /g, '-'), id: 'overall', 'data-value': o },
      [o.toUpperCase() + ' (exit code ' + v.exit_code + ')']);
  }

  function runFacts(r, id) {
    var l = r.latency_ns || {};
    var rows = [
      [W.many + (W.one === 'query' ? ' answered' : ' run'), cell(r.counts.queries, grouped)],
      ['errors', cell(r.counts.errors, grouped)],
      [W.many + ' per second', cell(r.timing.queries_per_second, function (v) { return grouped(v, 0); })],
      ['time per ' + W.one, cell(r.timing.queries_per_second > 0 ? 1e9 / r.timing.queries_per_second : null, ns)],
      ['wall time', cell(r.timing.wall_s, function (v) { return grouped(v, 3) + ' s'; })],
      ['CPU', cell(r.timing.cpu_percent, function (v) { return grouped(v, 1) + ' %'; })],
      ['data transferred', cell(r.counts.data_transferred_mib, function (v) { return grouped(v, 2) + ' MiB'; })],
      ['RSS after load', cell(r.startup.rss_after_load_bytes, bytes)],
      ['time to first ' + W.one, cell(r.startup.ns_to_first_query, ns)],
      ['latency p50', cell(isNum(l.p50) ? l.p50 : null, ns)],
      ['latency p97.5', cell(isNum(l.p97_5) ? l.p97_5 : null, ns)],
      ['latency p99', cell(isNum(l.p99) ? l.p99 : null, ns)],
      ['latency max', cell(isNum(l.max) ? l.max : null, ns)],
      ['latency mean', cell(isNum(l.mean) ? l.mean : null, ns)],
      ['latency stdev', cell(isNum(l.stdev) ? l.stdev : null, ns)],
      ['latencies timed', cell(l.count, grouped)],
    ];
    return table(id, [{ title: 'figure', cls: 'text' }, { title: 'value' }],
      rows.map(function (r) { return [textCell(r[0]), r[1]]; }));
  }

  function verdictTable(r, id) {
    var cols = ['layer', 'start', 'end', 'growth after warm-up', 'min growth', 'slope', 'slope limit', 'verdict', 'reason']
      .map(function (t, i) { return { title: t, cls: i === 0 || i >= 7 ? 'text' : undefined }; });
    var rows = r.layers.map(function (L) {
      var s = (r.summary && r.summary[L.metric]) || {};
      var v = L.verdict + (L.partial ? ' (partial)' : '') + (L.borderline ? ' (borderline)' : '');
      return [
        textCell(L.layer),
        cell(s.available ? s.start : null, function (x) { return amount(x, L.unit); }),
        cell(s.available ? s.end : null, function (x) { return amount(x, L.unit); }),
        cell(s.available ? s.growth_after_warmup : null, function (x) { return amount(x, L.unit); }),
        cell(L.min_growth, function (x) { return amount(x, L.unit); }),
        cell(s.available ? s.slope_per_mquery : null, function (x) { return slope(x, L.unit); }),
        cell(L.slope_limit_per_mquery, function (x) { return '> ' + slope(x, L.unit); }),
        { text: v, value: L.verdict, cls: 'text verdict-' + L.verdict.replace(/ /g, '-') },
        textCell(L.reason || '', 'reason'),
      ];
    });
    return table(id, cols, rows);
  }

  function verdictTitle(r) {
    var sp = r.verdict.span || {};
    return 'Leak verdict: warm-up ends at query ' + grouped(r.run.warmup_end_queries || 0) +
      (sp.samples ? '; growth and slope after warm-up, queries ' + grouped(sp.first_queries) + '..' +
        grouped(sp.last_queries) + ' (' + sp.samples + ' samples)' : '; no sample after warm-up');
  }

  function judgedLayers(r) {
    return r.layers.filter(function (L) { return L.verdict !== 'n/a' && r.summary[L.metric] && r.summary[L.metric].available; });
  }

  // --confirm (docs/leak-verdict.md): a borderline verdict, and the run
  // that repeated a borderline one with twice the queries, whose verdict stands.
  function confirmation(root, r) {
    var v = r.verdict;
    var unit = (r.run.unit || 'query') === 'iteration' ? ' iterations' : ' queries';
    var lines = [];
    if (v.borderline && !v.confirms) {
      lines.push('Borderline in ' + v.borderline_layers.join(', ') + ': a longer run could turn this verdict over; ' +
        '--confirm repeats it with ' + grouped(2 * r.run.queries_planned) + unit + '.');
    }
    if (v.confirms) {
      var c = v.confirms;
      lines.push('Confirmation: the run of ' + grouped(c.queries_planned) + unit + ' was borderline (' +
        (c.exit_code === 1 ? 'LEAK in ' + c.leaking_layers.join(', ') : 'NO LEAK') + '; borderline in ' +
        c.borderline_layers.join(', ') + '); this run repeated it with ' + grouped(r.run.queries_planned) + unit +
        ' (--confirm) and its verdict stands.');
    }
    lines.forEach(function (t) { root.appendChild(el('p', { class: 'sub' }, [t])); });
  }

  function renderRun(root, r) {
    var run = r.run;
    document.title = 'dalkit stress report: ' + run.driver;
    root.appendChild(el('h1', null, ['Stress report: ' + run.driver + ' ']));
    root.lastChild.appendChild(overallBadge(r.verdict));
    root.appendChild(el('p', { class: 'sub' }, [[run.runtime, run.mode, grouped(run.queries_planned) + ' queries planned',
      run.threads + ' thread' + (run.threads === 1 ? '' : 's'), 'started ' + new Date(run.started_unix_ms).toISOString()]
      .filter(Boolean).join(' · ')]));
    if (r.verdict.errors && r.verdict.errors.length) {
      root.appendChild(el('ul', { class: 'errors' }, r.verdict.errors.map(function (e) { return el('li', null, [e]); })));
    }
    confirmation(root, r);
    root.appendChild(el('h2', null, ['Memory by layer']));
    var charts = el('div', { class: 'charts' });
    root.appendChild(charts);
    judgedLayers(r).forEach(function (L) {
      layerChart(charts, L.layer + ' (' + L.metric + '): ' + L.verdict + (L.partial ? ' (partial)' : ''), L.metric,
        metricUnit(r, L.metric), [{ label: run.driver, report: r }]);
    });
    root.appendChild(el('h2', null, ['Verdict']));
    root.appendChild(el('p', { class: 'note' }, [verdictTitle(r)]));
    root.appendChild(verdictTable(r, 'verdict-table'));
    root.appendChild(el('p', { class: 'note' }, ['Slopes: bytes per query (B/q) for byte layers, objects per million queries (/Mq) for count layers.']));
    root.appendChild(el('h2', null, ['Run and latency']));
    var row = el('div', { class: 'charts' });
    root.appendChild(row);
    var facts = el('div');
    facts.appendChild(runFacts(r, 'run-table'));
    row.appendChild(facts);
    if (r.latency_ns && r.latency_ns.count > 0) latencyChart(row, 'Latency distribution', [{ label: run.driver, report: r }]);
  }

  // ---- comparison (docs/compare.md, schema dalkit-compare-report) ----------

  function meanSd(st, fmt) {
    if (!st || !isNum(st.mean)) return { text: 'n/a', value: 'null' };
    return { text: fmt(st.mean) + (isNum(st.sd) && st.n > 1 ? ' ± ' + fmt(st.sd) : ''), value: st.mean };
  }

  function pathTable(c) {
    var cols = ['path', 'runs', 'queries per second', 'time per query', 'p50', 'p97.5', 'p99', 'max',
      'RSS after load', 'RSS over bare runtime', 'time to first query', 'average RSS', 'peak RSS', 'data transferred', 'verdict']
      .map(function (t, i) { return { title: t, cls: i === 0 || i === 14 ? 'text' : undefined }; });
    return table('path-table', cols, c.paths.map(function (p) {
      var s = p.summary || {}, l = s.latency_ns || {}, st = s.startup || {}, rss = s.rss || {};
      var nul = function (v) { return isNum(v) ? v : null; };
      var verdict = s.verdict || 'n/a';
      return [
        textCell(p.name),
        { text: (s.runs_measured || 0) + ' of ' + (s.runs_planned || 0), value: s.runs_measured || 0 },
        meanSd(s.queries_per_second, function (v) { return grouped(v, 0); }),
        meanSd(s.ns_per_query, ns),
        cell(nul(l.p50), ns), cell(nul(l.p97_5), ns), cell(nul(l.p99), ns), cell(nul(l.max), ns),
        cell(nul(st.rss_after_load_bytes), bytes), cell(nul(st.rss_over_bare_bytes), bytes), cell(nul(st.ns_to_first_query), ns),
        cell(nul(rss.average_bytes), bytes), cell(nul(rss.peak_bytes), bytes),
        cell(nul(s.data_transferred_mib), function (v) { return isNum(v) ? grouped(v, 2) + ' MiB' : 'n/a'; }),
        { text: verdict, value: verdict, cls: 'text verdict-' + verdict.split(' (')[0].replace(/ /g, '-') },
      ];
    }));
  }

  // Per path and layer: the mean post-warm-up slope over the runs and the verdict.
  function layerSummaryTable(p, id) {
    var layers = (p.summary && p.summary.layers) || [];
    var cols = ['layer', 'mean slope', 'largest slope', 'verdict'].map(function (t, i) { return { title: t, cls: i === 0 || i === 3 ? 'text' : undefined }; });
    return table(id, cols, layers.map(function (L) {
      return [textCell(L.layer), cell(isNum(L.slope_per_mquery) ? L.slope_per_mquery : null, function (x) { return slope(x, L.unit); }),
        cell(isNum(L.slope_per_mquery_max) ? L.slope_per_mquery_max : null, function (x) { return slope(x, L.unit); }),
        { text: L.verdict, value: L.verdict, cls: 'text verdict-' + String(L.verdict).split(' (')[0].replace(/ /g, '-') }];
    }));
  }

  function renderCompare(root, c) {
    document.title = 'dalkit stress comparison';
    var o = c.options || {};
    root.appendChild(el('h1', null, ['Stress comparison: ' + c.paths.map(function (p) { return p.name; }).join(', ')]));
    root.appendChild(el('p', { class: 'sub' }, [[o.workload ? 'workload ' + o.workload : null,
      isNum(o.queries) ? grouped(o.queries) + ' queries per run' : null, isNum(o.runs) ? o.runs + ' runs per path' : null,
      c.baseline ? 'baseline ' + c.baseline : null, c.host && c.host.platform, isNum(c.exit_code) ? 'exit code ' + c.exit_code : null]
      .filter(Boolean).join(' · ')]));
    if (c.failures && c.failures.length) {
      root.appendChild(el('h2', null, ['Failed runs']));
      root.appendChild(el('ul', { class: 'errors', id: 'failures' }, c.failures.map(function (f) {
        return el('li', null, [f.path + ' round ' + f.round + ': ' + f.kind + ': ' + f.message]);
      })));
    }
    root.appendChild(el('h2', null, ['Per path']));
    root.appendChild(el('div', { class: 'wide' }, [pathTable(c)]));
    if (c.comparisons && c.comparisons.length) {
      root.appendChild(el('h2', null, ['Against the baseline' + (c.metric ? ' (' + c.metric.replace(/_/g, ' ') + ')' : '')]));
      root.appendChild(el('div', { class: 'wide' }, [comparisonTable(c.comparisons)]));
      var mc = c.multiple_comparisons;
      root.appendChild(el('p', { class: 'note', id: 'multiple-comparisons' }, ['Welch\'s t-test: * p < 0.05, ** p < 0.01, *** p < 0.001. ' +
        (mc ? 'Multiple comparisons: ' + mc.tests + ' tests, so about ' + grouped(mc.expected_false_positives['*'], 2) +
          ' stars are expected by chance alone; significant after Holm: ' + ((mc.significant_holm || []).join(', ') || 'none') +
          '; after Bonferroni (p < ' + mc.bonferroni_alpha + '): ' + ((mc.significant_bonferroni || []).join(', ') || 'none') + '.'
          : 'With several comparisons some stars are expected by chance alone.')]));
    }
    (c.notes || []).forEach(function (n) { root.appendChild(el('p', { class: 'note' }, [n])); });
    c.paths.forEach(function (p, pi) {
      root.appendChild(el('h2', { id: 'path-' + pi }, ['Path: ' + p.name]));
      if (p.about) root.appendChild(el('p', { class: 'sub' }, [p.about]));
      if (!p.runs || !p.runs.length) {
        root.appendChild(el('p', { class: 'errors' }, ['No run of this path wrote a report.']));
        return;
      }
      var charts = el('div', { class: 'charts' });
      root.appendChild(charts);
      var runs = p.runs.map(function (r, i) { return { label: 'run ' + (i + 1), report: r }; });
      judgedLayers(p.runs[0]).forEach(function (L) {
        layerChart(charts, p.name + ': ' + L.layer + ' (' + L.metric + ')', L.metric, metricUnit(p.runs[0], L.metric), runs);
      });
      var timed = runs.filter(function (r) { return r.report.latency_ns && r.report.latency_ns.count > 0; });
      if (timed.length) latencyChart(charts, p.name + ': latency distribution', timed);
      root.appendChild(el('h3', null, ['Layers over ' + p.runs.length + ' run' + (p.runs.length === 1 ? '' : 's')]));
      root.appendChild(layerSummaryTable(p, 'layer-table-' + pi));
    });
  }

  // cmp's comparisons are flat: one column per key, in the order of the keys.
  function comparisonTable(rows) {
    var keys = [];
    rows.forEach(function (r) { Object.keys(r).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); }); });
    var titles = { queries_per_second: 'q/s', baseline_queries_per_second: 'baseline q/s', baseline_runs: 'baseline runs',
      improvement_pct: 'improvement', ci95_low_pct: '95% CI low', ci95_high_pct: '95% CI high', p_holm: 'p (Holm)',
      holm_significant: 'Holm sig.', p_bonferroni: 'p (Bonferroni)' };
    var cols = keys.map(function (k) { return { title: titles[k] || k.replace(/_/g, ' '), cls: typeof rows[0][k] === 'string' ? 'text' : undefined }; });
    return table('comparison-table', cols, rows.map(function (r) {
      return keys.map(function (k) {
        var v = r[k];
        if (k === 'stars') return { text: v || '', value: v || '', cls: 'stars' };
        if (typeof v === 'boolean') return { text: v ? 'yes' : 'no', value: String(v), cls: 'text' };
        if (isNum(v) && /^p(_|$)/.test(k)) return cell(v, function (x) { return x === 0 ? '0' : x < 1e-4 ? x.toExponential(2) : x.toFixed(4); });
        if (isNum(v) && /_pct$/.test(k)) return cell(v, function (x) { return (x > 0 ? '+' : '') + grouped(x, 2) + ' %'; });
        if (isNum(v)) return cell(v, function (x) { return grouped(x, Math.round(x) === x ? 0 : 2); });
        if (v === null || v === undefined) return { text: 'n/a', value: 'null' };
        return textCell(typeof v === 'object' ? JSON.stringify(v) : String(v));
      });
    }));
  }

  // ---- start -----------------------------------------------------------------

  var root = document.getElementById('report');
  root.textContent = '';
  try {
    var report = JSON.parse(document.getElementById('report-data').textContent);
    if (report && report.kind === 'compare') {
      useUnit(report.paths && report.paths[0] && report.paths[0].runs && report.paths[0].runs[0]); // runs[]: monitor reports
      renderCompare(root, report);
    } else if (report && report.schema === 'dalkit-stress-report') {
      useUnit(report);
      renderRun(root, report);
    }
    else throw new Error('not a dalkit stress report (no schema "dalkit-stress-report", no kind "compare")');
    document.body.setAttribute('data-charts', String(chartCount));
  } catch (e) {
    root.appendChild(el('p', { class: 'errors', id: 'render-error' }, ['This report could not be drawn: ' + e.message]));
    document.body.setAttribute('data-render-error', e.message);
  }
})();
