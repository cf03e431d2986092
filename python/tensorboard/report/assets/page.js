/* tensorboard export's report page: reads the JSON in #report-data and draws it with uPlot.
   Smoothing is TensorBoard's debiased exponential moving average; nothing is loaded from outside. */
(function () {
  "use strict";
  var timings = {start: performance.now()};
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var root = document.getElementById("report");
  var charts = [];  // {plot, rebuild}
  var state = {smoothing: 0.6, log: false};
  var PCT = ["min", "7%", "16%", "31%", "median", "69%", "84%", "93%", "max"];

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { node.appendChild(c); });
    return node;
  }

  function color(i, alpha) {
    return "hsla(" + ((i * 137.508) % 360).toFixed(1) + ",70%,42%," + (alpha == null ? 1 : alpha) + ")";
  }

  function bytes(b64) {
    var bin = atob(b64), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return new DataView(out.buffer);
  }

  function steps(enc) {
    var out = [];
    if (Array.isArray(enc)) {
      for (var i = 0; i < enc[2]; i++) out.push(enc[0] + enc[1] * i);
      return out;
    }
    var view = bytes(enc);
    for (var j = 0; j < view.byteLength; j += 8) out.push(view.getFloat64(j, true));
    return out;
  }

  function floats(b64) {
    var view = bytes(b64), out = [];
    for (var i = 0; i < view.byteLength; i += 4) {
      var v = view.getFloat32(i, true);
      out.push(isFinite(v) ? v : null);
    }
    return out;
  }

  /* TensorBoard's smoothing: exponential moving average debiased by 1 - w^n; constant series and
     non-finite values are left as they are. */
  function smooth(ys, w) {
    var first = ys.length ? ys[0] : null;
    var constant = ys.every(function (v) { return v === first; });
    var last = 0, n = 0;
    return ys.map(function (v) {
      if (constant || v === null || !isFinite(v)) return v;
      last = last * w + (1 - w) * v;
      n++;
      return w === 1 ? last : last / (1 - Math.pow(w, n));
    });
  }

  function fmt(v) {
    if (v == null) return "--";
    var a = Math.abs(v);
    return (a !== 0 && (a >= 1e5 || a < 1e-3)) ? v.toExponential(4) : String(+v.toPrecision(6));
  }

  var widths = new Map();  // one layout read per grid, not one per chart
  function width(container) {
    if (!widths.has(container)) widths.set(container, Math.max(280, Math.min(container.clientWidth - 4, 560)));
    return widths.get(container);
  }

  /* Charts are drawn when they come near the viewport (and all of them before printing), so the
     page opens at once whatever the number of tags. */
  var pending = new Map();  // chart box -> its draw function
  var observer = ("IntersectionObserver" in window) ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { if (e.isIntersecting) drawNow(e.target); });
    if (timings.screen === undefined) timings.screen = performance.now();  // the first screen is drawn
  }, {rootMargin: "600px 0px"}) : null;

  function lazy(box, draw) {
    if (!observer) { draw(); return; }
    box.classList.add("pending");
    pending.set(box, draw);
    observer.observe(box);
  }

  function drawNow(box) {
    var draw = pending.get(box);
    if (!draw) return;
    pending.delete(box);
    observer.unobserve(box);
    box.classList.remove("pending");
    draw();
  }

  function drawAll() { Array.from(pending.keys()).forEach(drawNow); }
  window.addEventListener("beforeprint", drawAll);

  function same(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /* Union of the series' steps, and for each series the positions of its points in it. */
  function align(series) {
    if (series.every(function (s) { return same(s.x, series[0].x); })) {  // the usual case: one set of steps
      series.forEach(function (s) { s.at = null; });
      return series[0].x;
    }
    var total = 0;
    series.forEach(function (s) { total += s.x.length; });
    var all = new Float64Array(total), k = 0;
    series.forEach(function (s) { for (var i = 0; i < s.x.length; i++) all[k++] = s.x[i]; });
    all.sort();
    var xs = [];
    for (var j = 0; j < all.length; j++) if (j === 0 || all[j] !== all[j - 1]) xs.push(all[j]);
    series.forEach(function (s) {  // both sorted: one merge walk
      var p = 0;
      s.at = s.x.map(function (v) { while (xs[p] < v) p++; return p; });
    });
    return xs;
  }

  function scalarChart(grid, entry) {
    var series = entry.series.map(function (s) {
      return {run: s.run, x: steps(s.steps), y: floats(s.values), total: s.total,
              lower: s.lower ? floats(s.lower) : null, upper: s.upper ? floats(s.upper) : null};
    });
    var xs = align(series);
    var box = el("div", {"class": "chart", "data-tag": entry.tag}, [el("h3", {text: entry.tag})]);
    grid.appendChild(box);
    var plot = null;

    function columns() {
      var cols = [xs];
      series.forEach(function (s) {
        var clip = function (v) { return (state.log && !(v > 0)) ? null : v; };
        (s.lower ? [s.y, s.lower, s.upper] : [s.y]).forEach(function (raw) {  // a group run: mean, band
          var ys = state.smoothing > 0 ? smooth(raw, state.smoothing) : raw;
          if (s.at === null) {
            cols.push(state.log ? ys.map(clip) : ys);
            return;
          }
          var col = new Array(xs.length).fill(null);
          s.at.forEach(function (p, i) { col[p] = clip(ys[i]); });
          cols.push(col);
        });
      });
      return cols;
    }

    function lines() {  /* uPlot's series and bands: each run's line, a group run's band around its mean */
      var out = [{label: "step", value: function (u, v) { return v == null ? "--" : String(v); }}], bands = [];
      series.forEach(function (s) {
        var name = data.runs[s.run];
        out.push({label: name, stroke: color(s.run), width: s.lower ? 2 : 1.5, spanGaps: true,
                  points: {show: s.x.length < 3}, value: function (u, v) { return fmt(v); }});
        if (s.lower) {
          ["- std", "+ std"].forEach(function (side) {
            out.push({label: name + " " + side, stroke: color(s.run, 0.35), width: 0.5, spanGaps: true,
                      points: {show: false}, value: function (u, v) { return fmt(v); }});
          });
          bands.push({series: [out.length - 1, out.length - 2], fill: color(s.run, 0.18)});
        }
      });
      return {series: out, bands: bands};
    }

    function build() {
      if (plot) plot.destroy();
      var drawn = lines();
      var opts = {
        width: width(grid), height: 260,
        scales: {x: {time: false}, y: state.log ? {distr: 3, log: 10} : {distr: 1}},
        axes: [{label: "step"}, {size: 60}],
        cursor: {drag: {x: true, y: false}},
        legend: {live: true},
        series: drawn.series,
        bands: drawn.bands
      };
      plot = new uPlot(opts, columns(), box);
      record.plot = plot;
    }

    var record = {kind: "scalars", tag: entry.tag, plot: null,
                  rebuild: function () { if (plot) build(); },
                  update: function () { if (plot) plot.setData(columns()); }};
    charts.push(record);
    lazy(box, build);
  }

  function distributionChart(grid, tag, s) {
    var xs = steps(s.steps), flat = floats(s.values), cols = [xs];
    for (var k = 0; k < 9; k++) cols.push(xs.map(function (_, i) { return flat[i * 9 + k]; }));
    var box = el("div", {"class": "chart", "data-tag": tag},
                 [el("h3", {text: tag}), el("div", {"class": "run-name", text: data.runs[s.run]})]);
    grid.appendChild(box);
    var record = {kind: "distributions", tag: tag, run: data.runs[s.run], plot: null};
    var draw = function () {
      if (record.plot) record.plot.destroy();
      record.plot = new uPlot({
        width: width(grid), height: 220,
        scales: {x: {time: false}},
        axes: [{label: "step"}, {size: 60}],
        series: [{label: "step"}].concat(PCT.map(function (label, k) {
          return {label: label, stroke: k === 4 ? color(s.run) : color(s.run, 0), width: k === 4 ? 1.5 : 0,
                  points: {show: false}, value: function (u, v) { return fmt(v); }};
        })),
        bands: [[9, 1, 0.15], [8, 2, 0.2], [7, 3, 0.25], [6, 4, 0.3]].map(function (b) {
          return {series: [b[0], b[1]], fill: color(s.run, b[2])};
        })
      }, cols, box);
    };
    record.rebuild = record.update = function () {};
    charts.push(record);
    lazy(box, draw);
  }

  function section(title, id) {
    var sec = el("section", {id: id}, [el("h2", {text: title})]);
    root.appendChild(sec);
    return sec;
  }

  function controls() {
    var slider = el("input", {type: "range", min: "0", max: "0.999", step: "0.001", value: String(state.smoothing), id: "smoothing"});
    var shown = el("span", {"class": "value", text: state.smoothing.toFixed(3)});
    var log = el("input", {type: "checkbox", id: "log-y"});
    slider.addEventListener("input", function () {
      state.smoothing = +slider.value;
      shown.textContent = state.smoothing.toFixed(3);
      charts.forEach(function (c) { if (c.kind === "scalars") c.update(); });
    });
    log.addEventListener("change", function () {
      state.log = log.checked;
      charts.forEach(function (c) { if (c.kind === "scalars") c.rebuild(); });
    });
    return el("div", {"class": "controls"}, [
      el("label", {"for": "smoothing", text: "Smoothing "}), slider, shown,
      el("label", {"for": "log-y", text: " Log y "}), log]);
  }

  function header() {
    var downsampled = data.scalars.concat(data.distributions).some(function (e) {
      return e.series.some(function (s) { return s.total > data.maxPoints; });
    });
    var note = data.runs.length + " runs. " + (downsampled
      ? "Series longer than " + data.maxPoints + " points show " + data.maxPoints + " evenly spread ones, first and last kept."
      : "Every logged point is shown.");
    root.appendChild(el("header", {}, [el("h1", {text: data.title}), el("p", {"class": "note", text: note}),
                                       data.scalars.length ? controls() : el("span")]));
  }

  function images() {
    var sec = section("Images", "images");
    data.images.forEach(function (entry) {
      var grid = el("div", {"class": "media"});
      entry.items.forEach(function (item) {
        grid.appendChild(el("figure", {}, [el("img", {src: item.src, alt: entry.tag + " " + data.runs[item.run]}),
          el("figcaption", {text: data.runs[item.run] + " \u00b7 step " + item.step})]));
      });
      sec.appendChild(el("div", {"class": "tag-block"}, [el("h3", {text: entry.tag}), grid]));
    });
  }

  function texts() {
    var sec = section("Text", "text");
    data.text.forEach(function (entry) {
      var block = el("div", {"class": "tag-block"}, [el("h3", {text: entry.tag})]);
      entry.items.forEach(function (item) {
        item.texts.forEach(function (t) {
          block.appendChild(el("div", {"class": "text-item"}, [
            el("div", {"class": "run-name", text: data.runs[item.run] + " \u00b7 step " + t[0]}), el("pre", {text: t[1]})]));
        });
      });
      sec.appendChild(block);
    });
  }

  function hparams() {
    var sec = section("Hyperparameters", "hparams");
    var names = [], metrics = [];
    data.hparams.forEach(function (row) {
      Object.keys(row.hparams).forEach(function (k) { if (names.indexOf(k) < 0) names.push(k); });
      Object.keys(row.metrics).forEach(function (k) { if (metrics.indexOf(k) < 0) metrics.push(k); });
    });
    names.sort();
    var head = el("tr", {}, [el("th", {text: "run"})].concat(
      names.map(function (n) { return el("th", {text: n}); }),
      metrics.map(function (n) { return el("th", {"class": "metric", text: n}); })));
    var rows = data.hparams.map(function (row) {
      var cell = function (v) { return el("td", {text: v == null ? "" : typeof v === "number" ? fmt(v) : String(v)}); };
      return el("tr", {}, [el("td", {text: row.run})].concat(
        names.map(function (n) { return cell(row.hparams[n]); }), metrics.map(function (n) { return cell(row.metrics[n]); })));
    });
    sec.appendChild(el("table", {"class": "hparams"}, [el("thead", {}, [head]), el("tbody", {}, rows)]));
  }

  timings.parsed = performance.now();
  header();
  if (data.hparams.length) hparams();
  if (data.scalars.length) {
    var grid = el("div", {"class": "grid"});
    section("Scalars", "scalars").appendChild(grid);
    data.scalars.forEach(function (entry) { scalarChart(grid, entry); });
  }
  if (data.distributions.length) {
    var dgrid = el("div", {"class": "grid"});
    section("Distributions", "distributions").appendChild(dgrid);
    data.distributions.forEach(function (entry) {
      entry.series.forEach(function (s) { distributionChart(dgrid, entry.tag, s); });
    });
  }
  if (data.images.length) images();
  if (data.text.length) texts();
  if (!data.scalars.length && !data.distributions.length && !data.images.length && !data.text.length && !data.hparams.length) {
    root.appendChild(el("p", {"class": "note", text: "Nothing to show: no data matched."}));
  }
  timings.drawn = performance.now();
  window.tbReport = {smooth: smooth, charts: charts, state: state, timings: timings, drawAll: drawAll, ready: true};
})();
