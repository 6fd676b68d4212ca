/* Tile-lifecycle diagram: reveals the controls of each .gloss-tl figure and redraws its SVG for the
   chosen tile size and step. The drawing mirrors site_plugins/diagrams/figure.py:scene (same geometry, same
   classes); every number (banks, conflict ways, the step sentence) comes from the figure's data-tl
   JSON, computed by site_plugins/diagrams/tilemodel.py. No dependencies. */
(function () {
  "use strict";
  var W = 400, PANEL = 112, Y_SUMMARY = 14, Y_TITLES = 34, TOP = 44, X_IN = 0, X_TILE = 140, X_OUT = 288;
  var Y_BAR = TOP + PANEL + 14, Y_BANKS = Y_BAR + 34, BANK_W = 12, BANK_H = 3, BANKS = 32, WARP = 32;

  function cellPath(r, c) { return "M" + c + " " + r + "h1v1h-1z"; }
  function n(v) { return String(parseFloat(v.toFixed(2))); }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function scene(d, t, step) {
    var name = d.steps[step], width = t + d.pad, cell = PANEL / t, out = [];
    var validX = Math.max(1, t - d.cut_x), validY = Math.max(1, t - d.cut_y);
    var st = d.states[String(t)][step];
    function rect(x, y, w, h, cls, extra) {
      out.push('<rect class="' + cls + '" x="' + n(x) + '" y="' + n(y) + '" width="' + n(w) + '" height="' +
               n(h) + '"' + (extra || "") + "/>");
    }
    function text(x, y, words, anchor) {
      out.push('<text x="' + n(x) + '" y="' + n(y) + '" text-anchor="' + (anchor || "start") + '">' + esc(words) +
               "</text>");
    }
    text(W / 2, Y_SUMMARY, d.summaries[String(t)], "middle");
    text(X_IN, Y_TITLES, "global in");
    text(X_TILE + (PANEL + d.pad * cell) / 2, Y_TITLES, "tile[" + t + "][" + width + "]", "middle");
    text(W, Y_TITLES, "global out", "end");
    rect(X_IN, TOP, PANEL, PANEL, "tl-frame");
    rect(X_OUT, TOP, PANEL, PANEL, "tl-frame");
    [[X_IN, d.cut_x, d.cut_y], [X_OUT, d.cut_y, d.cut_x]].forEach(function (p) {
      var vw = t - Math.min(p[1], t - 1), vh = t - Math.min(p[2], t - 1);
      if (vw < t) rect(p[0] + vw * cell, TOP, (t - vw) * cell, PANEL, "tl-off");
      if (vh < t) rect(p[0], TOP + vh * cell, vw * cell, (t - vh) * cell, "tl-off");
    });
    var r, c;
    [[X_IN, validY, validX, "load"], [X_OUT, validX, validY, "store"]].forEach(function (p) {
      if (name !== p[3]) return;
      out.push('<g transform="translate(' + n(p[0]) + " " + TOP + ") scale(" + n(cell) + ')">');
      for (var i = 0; i < p[1]; i++) {
        out.push('<rect class="tl-row" x="0" y="' + n(i + 0.1) + '" width="' + p[2] + '" height="0.8"/>');
      }
      out.push("</g>");
    });
    var byBank = {}, garbage = [], banks = [];
    for (r = 0; r < t; r++) {
      for (c = 0; c < t; c++) {
        if (c < validX && r < validY) {
          var b = (r * width + c) % BANKS;
          if (!byBank[b]) { byBank[b] = []; banks.push(b); }
          byBank[b].push(cellPath(r, c));
        } else if (d.guard_barrier && step >= 1) garbage.push(cellPath(r, c));
      }
    }
    out.push('<g class="tl-tile" transform="translate(' + n(X_TILE) + " " + TOP + ") scale(" + n(cell) + ')">');
    banks.sort(function (a, b2) { return a - b2; }).forEach(function (bk) {
      out.push('<path class="tl-bank" style="--b:' + bk + '" d="' + byBank[bk].join("") + '"/>');
    });
    if (garbage.length) out.push('<path class="tl-garbage" d="' + garbage.join("") + '"/>');
    if (d.pad) out.push('<rect class="tl-pad" x="' + t + '" y="0" width="' + d.pad + '" height="' + t + '"/>');
    if (st.outline.length) {
      out.push('<path class="tl-warp" d="' + st.outline.map(function (rc) { return cellPath(rc[0], rc[1]); }).join("") + '"/>');
    }
    out.push('<rect class="tl-frame" x="0" y="0" width="' + width + '" height="' + t + '"/></g>');
    var mid = TOP + PANEL / 2;
    if (name === "load") {
      out.push('<line class="tl-arrow" x1="' + n(X_IN + PANEL + 4) + '" y1="' + n(mid) + '" x2="' + n(X_TILE - 6) +
               '" y2="' + n(mid) + '" marker-end="url(#tl-head)"/>');
    }
    if (name === "store") {
      out.push('<line class="tl-arrow" x1="' + n(X_TILE + width * cell + 4) + '" y1="' + n(mid) + '" x2="' +
               n(X_OUT - 6) + '" y2="' + n(mid) + '" marker-end="url(#tl-head)"/>');
    }
    if (name === "barrier") {
      var cls = d.broken[String(t)] ? "tl-barrier tl-barrier--broken" : "tl-barrier";
      out.push('<line class="' + cls + '" x1="0" y1="' + n(Y_BAR) + '" x2="' + W + '" y2="' + n(Y_BAR) + '"/>');
      text(W / 2, Y_BAR + 18, "__syncthreads()", "middle");
    }
    if (st.banks.length) {
      var counts = [], base = Y_BANKS + WARP * BANK_H, i;
      for (i = 0; i < BANKS; i++) counts.push(0);
      st.banks.forEach(function (bk) { counts[bk] += 1; });
      for (i = 0; i < BANKS; i++) {
        var bx = 8 + i * BANK_W;
        rect(bx, Y_BANKS, BANK_W - 2, WARP * BANK_H, "tl-slot");
        if (counts[i]) rect(bx, base - counts[i] * BANK_H, BANK_W - 2, counts[i] * BANK_H, "tl-bank", ' style="--b:' + i + '"');
      }
      text(8, base + 16, "bank 0");
      text(8 + 32 * BANK_W - 2, base + 16, "31", "end");
      text(W / 2, base + 16, st.label, "middle");
    }
    return out.join("");
  }

  function setup(fig) {
    var d = JSON.parse(fig.getAttribute("data-tl"));
    var controls = fig.querySelector(".tl-controls"), slider = fig.querySelector("input[type=range]");
    var output = fig.querySelector("output"), readout = fig.querySelector(".tl-readout");
    var g = fig.querySelector(".tl-scene"), title = fig.querySelector("svg title");
    var stepButtons = Array.prototype.slice.call(fig.querySelectorAll(".tl-step"));
    var t = d.tile, step = d.step;
    function draw() {
      g.innerHTML = scene(d, t, step);
      title.textContent = "Tile lifecycle, tile[" + t + "][" + (t + d.pad) + "]";
      readout.textContent = d.states[String(t)][step].text;
      output.textContent = t + " \u00d7 " + t;
      slider.setAttribute("aria-valuetext", t + " by " + t);
      stepButtons.forEach(function (b, i) { b.setAttribute("aria-pressed", String(i === step)); });
      fig.setAttribute("data-state", t + "/" + step);
    }
    function go(i) { step = (i + d.steps.length) % d.steps.length; draw(); }
    slider.addEventListener("input", function () { t = d.sizes[Number(slider.value)]; draw(); });
    fig.querySelector(".tl-prev").addEventListener("click", function () { go(step - 1); });
    fig.querySelector(".tl-next").addEventListener("click", function () { go(step + 1); });
    stepButtons.forEach(function (b, i) { b.addEventListener("click", function () { go(i); }); });
    fig.addEventListener("keydown", function (e) {
      if (e.target === slider) return;  // the slider's own arrows change the tile size
      var onStep = stepButtons.indexOf(e.target) >= 0;
      if (e.key === "ArrowRight") { go(step + 1); e.preventDefault(); }
      if (e.key === "ArrowLeft") { go(step - 1); e.preventDefault(); }
      // Focus follows the pressed step, so the ring shows which step the arrows chose.
      if (onStep && (e.key === "ArrowRight" || e.key === "ArrowLeft")) stepButtons[step].focus();
    });
    controls.hidden = false;
    draw();
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".gloss-tl:not([data-ready])"), function (fig) {
      fig.setAttribute("data-ready", "");
      setup(fig);
    });
  }
  // mkdocs-material's instant navigation swaps pages without a reload: document$ announces each one.
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
