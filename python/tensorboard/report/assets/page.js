/* tensorboard export's report page: reads the JSON in #report-data and draws it with uPlot.
   Smoothing is TensorBoard's debiased exponential moving average; nothing is loaded from outside. */
(function () {
  "use strict";
  var timings = {start: performance.now()};
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var root = document.getElementById("report");
  var charts = [];  // {plot, rebuild}
  var state = {smoothing: 0.6, logY: false, logX: false, x: "step"};
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

  /* Union of the series' x values, and for each series the positions of its points in it (null:
     every series has the same x values, the usual case of one set of steps). */
  function align(xLists) {
    if (xLists.every(function (x) { return same(x, xLists[0]); })) {
      return {xs: xLists.length ? xLists[0] : [], at: xLists.map(function () { return null; })};
    }
    var total = 0;
    xLists.forEach(function (x) { total += x.length; });
    var all = new Float64Array(total), k = 0;
    xLists.forEach(function (x) { for (var i = 0; i < x.length; i++) all[k++] = x[i]; });
    all.sort();
    var xs = [];
    for (var j = 0; j < all.length; j++) if (j === 0 || all[j] !== all[j - 1]) xs.push(all[j]);
    var at = xLists.map(function (x) {  // both sorted: one merge walk
      var p = 0;
      return x.map(function (v) { while (xs[p] < v) p++; return p; });
    });
    return {xs: xs, at: at};
  }

  /* A column of the aligned data: `ys` put at positions `at` (null: already aligned). */
  function place(ys, at, length) {
    if (at === null) return ys;
    var col = new Array(length).fill(null);
    at.forEach(function (p, i) { col[p] = ys[i]; });
    return col;
  }

  var decodedWalls = new Map();  // index into data.walls -> wall times, decoded once (a run's tags share one)
  function decodeWalls(index) {
    if (index === undefined) return null;  // a group's mean: no wall time
    if (!decodedWalls.has(index)) {
      var enc = data.walls[index];
      decodedWalls.set(index, floats(enc.offsets).map(function (v) { return enc.start + v; }));
    }
    return decodedWalls.get(index);
  }

  function decodeSeries(s) {
    return {run: s.run, x: steps(s.steps), y: floats(s.values), total: s.total, walls: decodeWalls(s.walls),
            lower: s.lower ? floats(s.lower) : null, upper: s.upper ? floats(s.upper) : null};
  }

  var decodedScalars = new Map();  // tag -> its decoded series, decoded once
  function scalarSeries(tag) {
    if (!decodedScalars.has(tag)) {
      var entry = data.scalars.find(function (e) { return e.tag === tag; });
      decodedScalars.set(tag, entry ? entry.series.map(decodeSeries) : []);
    }
    return decodedScalars.get(tag);
  }

  /* The x axes the page offers: step, time since the series' first point, wall time, or a scalar tag. */
  function xAxis() {
    var mode = state.x;
    if (mode === "step") return {mode: mode, label: "step", time: false, csv: "step"};
    if (mode === "relative") return {mode: mode, label: "relative time", time: false, csv: "relative_time_s"};
    if (mode === "wall") return {mode: mode, label: "wall time (UTC)", time: true, csv: "wall_time_s"};
    var tag = mode.slice(4);
    return {mode: "tag", tag: tag, label: tag, time: false, csv: tag};
  }

  /* `other`'s values at `stepsWanted` (both sorted): its own value at an equal step, else linear between
     its neighbouring points (a tag logged less often, or downsampled), null outside its range. */
  function joinOnStep(stepsWanted, other) {
    var p = 0, xs = other.x, ys = other.y;
    return stepsWanted.map(function (step) {
      while (p < xs.length && xs[p] < step) p++;
      if (p < xs.length && xs[p] === step) return ys[p];
      if (p === 0 || p === xs.length || ys[p - 1] === null || ys[p] === null) return null;
      var t = (step - xs[p - 1]) / (xs[p] - xs[p - 1]);
      return ys[p - 1] + t * (ys[p] - ys[p - 1]);
    });
  }

  function nulls(n) { return new Array(n).fill(null); }

  /* Each point's x on the chosen axis, null where the series has none (a group's mean has no wall time). */
  function xValues(s, axis) {
    if (axis.mode === "step") return s.x;
    if (axis.mode === "tag") {
      var other = scalarSeries(axis.tag).find(function (o) { return o.run === s.run; });
      return other ? joinOnStep(s.x, other) : nulls(s.x.length);
    }
    if (!s.walls) return nulls(s.x.length);
    var first = s.walls[0];
    return axis.mode === "wall" ? s.walls : s.walls.map(function (w) { return w - first; });
  }

  /* The indices of the points drawn: those with an x (positive on a log x axis), in x order when
     `sortByX` (a tag's values, or wall times of a run that restarted, need not grow with the step). */
  function keptPoints(xs, sortByX) {
    var keep = [];
    for (var i = 0; i < xs.length; i++) {
      if (xs[i] !== null && isFinite(xs[i]) && !(state.logX && !(xs[i] > 0))) keep.push(i);
    }
    if (sortByX) keep.sort(function (a, b) { return xs[a] - xs[b] || a - b; });
    return keep;
  }

  /* Where each series' points go on the chosen x axis: made once per drawing, since smoothing changes
     the y values only. */
  function layoutOf(seriesList, axis) {
    var kept = seriesList.map(function (s) {
      var xs = xValues(s, axis), keep = keptPoints(xs, axis.mode !== "step");
      return {keep: keep, x: keep.map(function (i) { return xs[i]; })};
    });
    return {kept: kept, joined: align(kept.map(function (k) { return k.x; }))};
  }

  /* uPlot's data: [xs, then each series' y arrays (`columnsPerSeries[k]`), put where the layout says]. */
  function layoutData(layout, columnsPerSeries) {
    var xs = layout.joined.xs, cols = [xs];
    columnsPerSeries.forEach(function (columns, k) {
      var keep = layout.kept[k].keep, at = layout.joined.at[k];
      columns.forEach(function (col) {
        cols.push(place(keep.map(function (i) { return col[i]; }), at, xs.length));
      });
    });
    return cols;
  }

  function positiveOrNull(v) { return v > 0 ? v : null; }

  function xOptions(axis) {
    var scale = {time: axis.time};
    if (state.logX) { scale.distr = 3; scale.log = 10; }
    var shown = {label: axis.label};
    if (axis.mode === "relative") shown.values = function (u, splits) { return splits.map(duration); };
    return {scale: scale, axis: shown, value: function (u, v) { return v == null ? "--" : xText(axis, v); }};
  }

  function duration(s) {
    if (s == null) return "";
    var a = Math.abs(s);
    if (a < 120) return +s.toPrecision(4) + " s";
    if (a < 7200) return +(s / 60).toPrecision(4) + " min";
    if (a < 172800) return +(s / 3600).toPrecision(4) + " h";
    return +(s / 86400).toPrecision(4) + " d";
  }

  function xText(axis, v) {
    if (axis.mode === "wall") return new Date(v * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC";
    if (axis.mode === "relative") return duration(v);
    return axis.mode === "step" ? String(v) : fmt(v);
  }

  function scalarChart(grid, entry) {
    var box = chartBox(grid, entry.tag, null);
    var plot = null, layout = null, record;

    function yColumns() {  /* each series' y arrays as drawn: smoothed, and masked on a log y axis */
      return scalarSeries(entry.tag).map(function (s) {
        return (s.lower ? [s.y, s.lower, s.upper] : [s.y]).map(function (raw) {  // a group run: mean, band
          var ys = state.smoothing > 0 ? smooth(raw, state.smoothing) : raw;
          return state.logY ? ys.map(positiveOrNull) : ys;
        });
      });
    }

    function build() {
      if (plot) plot.destroy();
      var axis = xAxis(), x = xOptions(axis), drawn = scalarLines(scalarSeries(entry.tag), axis.label, x.value);
      layout = layoutOf(scalarSeries(entry.tag), axis);
      record.spec = {title: entry.tag, subtitle: null, x: axis, lines: drawn.spec, bands: drawn.bands};
      plot = new uPlot({
        width: width(grid), height: 260, tzDate: utc,
        scales: {x: x.scale, y: state.logY ? {distr: 3, log: 10} : {distr: 1}},
        axes: [x.axis, {size: 60}],
        cursor: {drag: {x: true, y: false}},
        legend: {live: true},
        series: drawn.series,
        bands: drawn.bands.map(function (b) { return {series: [b.upper, b.lower], fill: b.fill}; })
      }, layoutData(layout, yColumns()), box);
      record.plot = plot;
    }

    record = {kind: "scalars", tag: entry.tag, plot: null, box: box,
              rebuild: function () { if (plot) build(); },
              update: function () { if (plot) plot.setData(layoutData(layout, yColumns())); }};
    charts.push(record);
    addDownloads(box, record);
    lazy(box, build);
  }

  function utc(ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); }

  /* uPlot's series and bands for scalar charts (each run's line, a group run's band around its mean), and
     the same as a plain spec for the SVG, PNG and CSV downloads: [{label, color, width, key}]. */
  function scalarLines(series, xLabel, xValue) {
    var out = [{label: xLabel, value: xValue}], spec = [], bands = [];
    var add = function (label, stroke, lineWidth, shown, key) {
      out.push({label: label, stroke: stroke, width: lineWidth, spanGaps: true,
                points: {show: shown}, value: function (u, v) { return fmt(v); }});
      spec.push({label: label, color: stroke, width: lineWidth, key: key});
    };
    series.forEach(function (s) {
      var name = data.runs[s.run];
      add(name, color(s.run), s.lower ? 2 : 1.5, s.x.length < 3, true);
      if (s.lower) {
        add(name + " - std", color(s.run, 0.35), 0.5, false, false);
        add(name + " + std", color(s.run, 0.35), 0.5, false, false);
        bands.push({upper: out.length - 1, lower: out.length - 2, fill: color(s.run, 0.18)});
      }
    });
    return {series: out, spec: spec, bands: bands};
  }

  function distributionChart(grid, tag, entry) {
    var s = decodeSeries(entry), flat = s.y, box = chartBox(grid, tag, data.runs[s.run]);
    var pct = PCT.map(function (_, k) { return s.x.map(function (_, i) { return flat[i * 9 + k]; }); });
    var record = {kind: "distributions", tag: tag, run: data.runs[s.run], plot: null, box: box};
    var spec = PCT.map(function (label, k) {
      return {label: label, color: k === 4 ? color(s.run) : color(s.run, 0), width: k === 4 ? 1.5 : 0, key: k === 4};
    });
    var bands = [[9, 1, 0.15], [8, 2, 0.2], [7, 3, 0.25], [6, 4, 0.3]].map(function (b) {
      return {upper: b[0], lower: b[1], fill: color(s.run, b[2])};
    });
    var draw = function () {
      if (record.plot) record.plot.destroy();
      var axis = xAxis(), x = xOptions(axis);
      record.spec = {title: tag, subtitle: data.runs[s.run], x: axis, lines: spec, bands: bands};
      record.plot = new uPlot({
        width: width(grid), height: 220, tzDate: utc,
        scales: {x: x.scale},
        axes: [x.axis, {size: 60}],
        series: [{label: axis.label, value: x.value}].concat(spec.map(function (line) {
          return {label: line.label, stroke: line.color, width: line.width,
                  points: {show: false}, value: function (u, v) { return fmt(v); }};
        })),
        bands: bands.map(function (b) { return {series: [b.upper, b.lower], fill: b.fill}; })
      }, layoutData(layoutOf([s], axis), [pct]), box);
    };
    record.rebuild = function () { if (record.plot) draw(); };
    record.update = function () {};
    charts.push(record);
    addDownloads(box, record);
    lazy(box, draw);
  }

  function chartBox(grid, tag, run) {
    var box = el("div", {"class": "chart", "data-tag": tag},
                 [el("div", {"class": "chart-head"}, [el("h3", {text: tag})])]);
    if (run !== null) box.appendChild(el("div", {"class": "run-name", text: run}));
    grid.appendChild(box);
    return box;
  }

  /* ---- Downloads: each chart as SVG, PNG or CSV, made in the page (Blob, object URL, <a download>), so
     they work from a file on disk with no network. What is saved is what is drawn: the current x axis,
     smoothing, log scales and zoom. ---- */

  function addDownloads(box, record) {
    var head = box.querySelector(".chart-head");
    var tools = el("div", {"class": "chart-tools"});
    [["SVG", saveSvg], ["PNG", savePng], ["CSV", saveCsv]].forEach(function (item) {
      var button = el("button", {type: "button", "class": "save-" + item[0].toLowerCase(),
                                 title: "save this chart as " + item[0], text: item[0]});
      button.addEventListener("click", function () {
        if (!record.plot) drawNow(box);
        item[1](record);
      });
      tools.appendChild(button);
    });
    head.appendChild(tools);
  }

  function download(name, blob) {
    var url = URL.createObjectURL(blob);
    var link = el("a", {href: url, download: name, style: "display:none"});
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);  // after the browser took the file
  }

  function fileName(record, ext) {
    var base = record.tag + (record.run ? "_" + record.run : "");
    return base.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "") + "." + ext;
  }

  /* The chart's data as CSV: the x column, then one column per drawn series (empty: no point there),
     the rows within the x range shown (a zoom narrows it). */
  function chartCsv(record) {
    var plot = record.plot, spec = record.spec, xs = plot.data[0], lo = plot.scales.x.min, hi = plot.scales.x.max;
    var quote = function (text) { return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text; };
    var lines = [[spec.x.csv].concat(spec.lines.map(function (l) { return l.label; })).map(quote).join(",")];
    for (var i = 0; i < xs.length; i++) {
      if (xs[i] < lo || xs[i] > hi) continue;
      lines.push(plot.data.map(function (col) { return col[i] == null ? "" : String(col[i]); }).join(","));
    }
    return lines.join("\n") + "\n";
  }

  function saveCsv(record) { download(fileName(record, "csv"), new Blob([chartCsv(record)], {type: "text/csv"})); }

  function saveSvg(record) {
    download(fileName(record, "svg"), new Blob([chartSvg(record).text], {type: "image/svg+xml"}));
  }

  /* The SVG drawn on a canvas at twice its size: one drawing for both formats. */
  function savePng(record) {
    var svg = chartSvg(record), scale = 2, image = new Image();
    image.onload = function () {
      var canvas = el("canvas", {width: String(svg.width * scale), height: String(svg.height * scale)});
      var ctx = canvas.getContext("2d");
      ctx.scale(scale, scale);
      ctx.drawImage(image, 0, 0, svg.width, svg.height);
      canvas.toBlob(function (blob) { download(fileName(record, "png"), blob); }, "image/png");
    };
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg.text);  // the CSP allows data: images
  }

  var SVG_NS = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, text) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text != null) node.textContent = text;
    return node;
  }

  /* At most about six round values from lo to hi (powers of ten on a log scale). */
  function ticks(lo, hi, log) {
    if (!(hi > lo)) return isFinite(lo) ? [lo] : [];
    var out = [];
    if (log) {
      for (var e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) out.push(Math.pow(10, e));
      return out.length ? out : [lo, hi];
    }
    var raw = (hi - lo) / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (st) { return st >= raw; });
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return out;
  }

  /* The chart as an SVG document: title, axes with ticks, bands, lines and a legend of the runs. */
  function chartSvg(record) {
    var plot = record.plot, spec = record.spec, ratio = uPlot.pxRatio;
    var box = {left: plot.bbox.left / ratio, top: plot.bbox.top / ratio + 28,
               width: plot.bbox.width / ratio, height: plot.bbox.height / ratio};
    var legend = spec.lines.filter(function (l) { return l.key; }), legendTop = box.top + box.height + 46;
    var width = plot.width, height = legendTop + 16 * Math.ceil(legend.length / 3) + 4;
    var svg = svgEl("svg", {xmlns: SVG_NS, width: String(width), height: String(height),
                            viewBox: "0 0 " + width + " " + height, "font-family": "system-ui, sans-serif"});
    svg.appendChild(svgEl("rect", {width: String(width), height: String(height), fill: "#fff"}));
    svg.appendChild(svgEl("text", {x: "8", y: "18", "font-size": "14", "font-weight": "bold"},
                          spec.title + (spec.subtitle ? " \u00b7 " + spec.subtitle : "")));
    svgAxes(svg, record, box);
    var clip = svgEl("clipPath", {id: "plot-area"});
    clip.appendChild(svgEl("rect", {x: String(box.left), y: String(box.top), width: String(box.width),
                                    height: String(box.height)}));
    svg.appendChild(clip);
    var layer = svgEl("g", {"clip-path": "url(#plot-area)", "class": "series"});
    svg.appendChild(layer);
    svgBands(layer, record, box);
    svgLines(layer, record, box);
    svgLegend(svg, legend, legendTop);
    return {text: new XMLSerializer().serializeToString(svg), width: width, height: height};
  }

  function svgPoint(plot, box, col, i) {
    var x = plot.valToPos(plot.data[0][i], "x"), y = plot.valToPos(plot.data[col][i], "y");
    return (box.left + x).toFixed(2) + "," + (box.top + y).toFixed(2);
  }

  function svgLines(layer, record, box) {
    var plot = record.plot;
    record.spec.lines.forEach(function (line, k) {
      if (!(line.width > 0)) return;
      var points = [];
      plot.data[k + 1].forEach(function (v, i) { if (v != null) points.push(svgPoint(plot, box, k + 1, i)); });
      if (!points.length) return;
      layer.appendChild(svgEl("polyline", {points: points.join(" "), fill: "none", stroke: line.color,
                                           "stroke-width": String(line.width), "data-label": line.label}));
    });
  }

  function svgBands(layer, record, box) {
    var plot = record.plot;
    record.spec.bands.forEach(function (band) {
      var upper = [], lower = [];
      plot.data[0].forEach(function (_, i) {
        if (plot.data[band.upper][i] != null && plot.data[band.lower][i] != null) {
          upper.push(svgPoint(plot, box, band.upper, i));
          lower.unshift(svgPoint(plot, box, band.lower, i));
        }
      });
      if (upper.length) layer.appendChild(svgEl("polygon", {points: upper.concat(lower).join(" "), fill: band.fill}));
    });
  }

  function svgAxes(svg, record, box) {
    var plot = record.plot, axis = record.spec.x, grid = "#e0e0e0";
    svg.appendChild(svgEl("rect", {x: String(box.left), y: String(box.top), width: String(box.width),
                                   height: String(box.height), fill: "none", stroke: "#9e9e9e"}));
    var xs = plot.scales.x, ys = plot.scales.y;
    ticks(xs.min, xs.max, state.logX).forEach(function (v) {
      var x = (box.left + plot.valToPos(v, "x")).toFixed(2);
      svg.appendChild(svgEl("line", {x1: x, x2: x, y1: String(box.top), y2: String(box.top + box.height), stroke: grid}));
      svg.appendChild(svgEl("text", {x: x, y: String(box.top + box.height + 14), "font-size": "11",
                                     "text-anchor": "middle"}, xText(axis, v)));
    });
    ticks(ys.min, ys.max, ys.distr === 3).forEach(function (v) {
      var y = (box.top + plot.valToPos(v, "y")).toFixed(2);
      svg.appendChild(svgEl("line", {x1: String(box.left), x2: String(box.left + box.width), y1: y, y2: y, stroke: grid}));
      svg.appendChild(svgEl("text", {x: String(box.left - 4), y: y, "font-size": "11", "text-anchor": "end",
                                     "dominant-baseline": "middle"}, fmt(v)));
    });
    svg.appendChild(svgEl("text", {x: String(box.left + box.width / 2), y: String(box.top + box.height + 30),
                                   "font-size": "12", "text-anchor": "middle"}, axis.label));
  }

  function svgLegend(svg, legend, top) {
    legend.forEach(function (line, k) {
      var x = 8 + (k % 3) * 180, y = top + 16 * Math.floor(k / 3) + 8;
      svg.appendChild(svgEl("rect", {x: String(x), y: String(y - 5), width: "14", height: "3", fill: line.color}));
      svg.appendChild(svgEl("text", {x: String(x + 18), y: String(y), "font-size": "11",
                                     "dominant-baseline": "middle"}, line.label));
    });
  }

  function section(title, id) {
    var sec = el("section", {id: id}, [el("h2", {text: title})]);
    root.appendChild(sec);
    return sec;
  }

  function redrawScalars(how) {
    charts.forEach(function (c) { if (c.kind === "scalars") c[how](); });
  }

  function smoothingControl() {
    var slider = el("input", {type: "range", min: "0", max: "0.999", step: "0.001", value: String(state.smoothing), id: "smoothing"});
    var shown = el("span", {"class": "value", text: state.smoothing.toFixed(3)});
    slider.addEventListener("input", function () {
      state.smoothing = +slider.value;
      shown.textContent = state.smoothing.toFixed(3);
      redrawScalars("update");
    });
    return [el("label", {"for": "smoothing", text: "Smoothing "}), slider, shown];
  }

  /* A checkbox that sets state[key] and redraws the charts it concerns. */
  function switchControl(id, label, key, everyChart) {
    var box = el("input", {type: "checkbox", id: id});
    box.addEventListener("change", function () {
      state[key] = box.checked;
      charts.forEach(function (c) { if (everyChart || c.kind === "scalars") c.rebuild(); });
    });
    return [el("label", {"for": id, text: " " + label + " "}), box];
  }

  function xAxisControl() {
    var options = [["step", "step"], ["relative", "relative time"], ["wall", "wall time (UTC)"]].concat(
      data.scalars.map(function (e) { return ["tag:" + e.tag, e.tag]; }));
    var select = el("select", {id: "x-axis"}, options.map(function (o) { return el("option", {value: o[0], text: o[1]}); }));
    select.addEventListener("change", function () {
      state.x = select.value;
      charts.forEach(function (c) { c.rebuild(); });
    });
    return [el("label", {"for": "x-axis", text: " x axis "}), select];
  }

  function controls() {  /* smoothing and log y concern scalar charts; the x axis, every chart */
    var scalars = data.scalars.length > 0;
    return el("div", {"class": "controls"}, [].concat(
      scalars ? smoothingControl() : [], xAxisControl(), switchControl("log-x", "Log x", "logX", true),
      scalars ? switchControl("log-y", "Log y", "logY", false) : []));
  }

  function header() {
    var downsampled = data.scalars.concat(data.distributions).some(function (e) {
      return e.series.some(function (s) { return s.total > data.maxPoints; });
    });
    var note = data.runs.length + " runs. " + (downsampled
      ? "Series longer than " + data.maxPoints + " points show " + data.maxPoints + " evenly spread ones, first and last kept."
      : "Every logged point is shown.");
    root.appendChild(el("header", {}, [el("h1", {text: data.title}), el("p", {"class": "note", text: note}),
                                       data.scalars.length || data.distributions.length ? controls() : el("span")]));
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
  window.tbReport = {smooth: smooth, charts: charts, state: state, timings: timings, drawAll: drawAll,
                    csv: chartCsv, svg: function (record) { return chartSvg(record).text; }, ready: true};
})();
