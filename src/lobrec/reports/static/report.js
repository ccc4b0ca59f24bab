
(function () {
  "use strict";
  var ORDER = ["filter", "group", "kind", "q", "cols", "fold", "sort", "open"];
  var CELL = /^[A-Za-z0-9_.-]+$/;
  var state = {};
  var each = function (list, visit) { Array.prototype.forEach.call(list, visit); };
  var board = document.querySelector("table.leader");
  var matrix = document.querySelector("table.matrix");
  var bar = document.getElementById("filters");
  var controls = {
    failures: document.getElementById("filter-failures"),
    disagree: document.getElementById("filter-disagree"),
    group: document.getElementById("filter-group"),
    kind: document.getElementById("filter-kind"),
    q: document.getElementById("filter-q"),
    count: document.getElementById("filter-count")
  };

  /* The address: #key=value&key=value, keys in ORDER; #open=<cell> alone still opens a cell. */
  function readHash() {
    var found = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at < 1) return;
      try { found[part.slice(0, at)] = decodeURIComponent(part.slice(at + 1)); } catch (error) { /* skip */ }
    });
    return found;
  }
  function writeHash() {
    var parts = [];
    ORDER.forEach(function (key) {
      if (state[key]) parts.push(key + "=" + encodeURIComponent(state[key]).replace(/%2C/g, ","));
    });
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (hash === location.hash) return;
    try { history.replaceState(null, "", hash || location.pathname + location.search); } catch (error) {
      /* file: URLs may refuse */
    }
  }
  function list(value) { return value ? value.split(",").filter(Boolean) : []; }

  /* --- the leaderboard: sort by a column, numbers as numbers, nothing-to-sort always last --- */
  function sortBoard() {
    if (!board) return;
    var spec = state.sort || board.getAttribute("data-default-sort");
    var descending = spec.charAt(0) === "-";
    var key = descending ? spec.slice(1) : spec;
    var heads = board.tHead.rows[0].cells;
    var column = -1;
    var text = false;
    each(heads, function (head, index) {
      var button = head.querySelector("button.sort");
      if (button && button.getAttribute("data-key") === key) {
        column = index;
        text = button.hasAttribute("data-text");
      }
    });
    if (column < 0) {
      /* a key no column has (a mistyped or stale link): ignored, the ranking shown */
      if (state.sort) { state.sort = ""; sortBoard(); }
      return;
    }
    each(heads, function (head, index) {
      var arrow = head.querySelector(".arrow");
      if (index === column) {
        head.setAttribute("aria-sort", descending ? "descending" : "ascending");
      } else {
        head.removeAttribute("aria-sort");
      }
      if (arrow) arrow.textContent = index === column ? (descending ? "\u25BC" : "\u25B2") : "";
    });
    var body = board.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    function value(row) {
      var raw = row.cells[column].getAttribute("data-sort");
      if (raw === null || raw === "") return null;
      return text ? raw.toLowerCase() : Number(raw);
    }
    rows.sort(function (a, b) {
      var x = value(a);
      var y = value(b);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) {
        return (x < y ? -1 : 1) * (descending ? -1 : 1);
      }
      return Number(a.getAttribute("data-rank")) - Number(b.getAttribute("data-rank"));
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  if (board) {
    board.tHead.addEventListener("click", function (event) {
      var button = event.target.closest ? event.target.closest("button.sort") : null;
      if (!button) return;
      var key = button.getAttribute("data-key");
      var current = state.sort || board.getAttribute("data-default-sort");
      var next;
      if (current === key) next = "-" + key;
      else if (current === "-" + key) next = key;
      else next = button.getAttribute("data-first") === "desc" ? "-" + key : key;
      state.sort = next === board.getAttribute("data-default-sort") ? "" : next;
      writeHash();
      sortBoard();
    });
  }

  /* --- the matrix: filters, folded groups, the open cell --- */
  function openCell() {
    return CELL.test(state.open || "") ? document.getElementById(state.open) : null;
  }
  function applyMatrix() {
    if (!matrix) return;
    var flags = list(state.filter);
    var failures = flags.indexOf("failures") >= 0;
    var disagree = flags.indexOf("disagree") >= 0;
    var group = state.group || "";
    var kind = state.kind || "";
    var query = (state.q || "").trim().toLowerCase();
    var folded = list(state.fold);
    var filtering = failures || disagree || group !== "" || kind !== "" || query !== "";
    var open = openCell();
    var shown = 0;
    var total = 0;
    each(matrix.tBodies, function (body) {
      var key = body.getAttribute("data-group");
      var fold = body.querySelector("details.fold");
      var isFolded = folded.indexOf(key) >= 0;
      if (fold && fold.open === isFolded) fold.open = !isFolded;
      body.classList.toggle("folded", isFolded);
      var matched = 0;
      var rows = body.querySelectorAll("tr.case");
      each(rows, function (row) {
        var match = (group === "" || group === key) &&
          (!failures || row.getAttribute("data-fail") === "1") &&
          (!disagree || row.getAttribute("data-disagree") === "1") &&
          (kind === "" || (" " + (row.getAttribute("data-kinds") || "") + " ").indexOf(" " + kind + " ") >= 0) &&
          (query === "" || row.getAttribute("data-text").toLowerCase().indexOf(query) >= 0);
        var pinned = open !== null && row.contains(open);
        if (match) matched += 1;
        row.hidden = !(match || pinned) || (isFolded && !pinned);
      });
      shown += matched;
      total += rows.length;
      body.hidden = matched === 0 && !(open !== null && body.contains(open));
      var count = body.querySelector(".group-count");
      if (count) {
        var all = rows.length + " case" + (rows.length === 1 ? "" : "s");
        count.textContent = filtering ? matched + " of " + all : all;
      }
    });
    if (controls.count) controls.count.textContent = shown + " of " + total + " cases shown";
  }
  function syncControls() {
    var flags = list(state.filter);
    if (controls.failures) controls.failures.checked = flags.indexOf("failures") >= 0;
    if (controls.disagree) controls.disagree.checked = flags.indexOf("disagree") >= 0;
    if (controls.group) {
      controls.group.value = state.group || "";
      if (controls.group.value !== (state.group || "")) { controls.group.value = ""; state.group = ""; }
    }
    if (controls.kind) {
      controls.kind.value = state.kind || "";
      if (controls.kind.value !== (state.kind || "")) { controls.kind.value = ""; state.kind = ""; }
    } else {
      state.kind = ""; /* no failed step, no kind filter: a kind in the address matches nothing */
    }
    if (controls.q && controls.q.value !== (state.q || "")) controls.q.value = state.q || "";
  }
  function readControls() {
    var flags = [];
    if (controls.failures && controls.failures.checked) flags.push("failures");
    if (controls.disagree && controls.disagree.checked) flags.push("disagree");
    state.filter = flags.join(",");
    state.group = controls.group ? controls.group.value : "";
    state.kind = controls.kind ? controls.kind.value : "";
    state.q = controls.q ? controls.q.value : "";
    writeHash();
    applyMatrix();
  }
  if (bar) {
    bar.hidden = false;
    bar.addEventListener("change", readControls);
    bar.addEventListener("input", readControls);
    var clear = document.getElementById("filter-clear");
    if (clear) {
      clear.addEventListener("click", function () {
        state.filter = "";
        state.group = "";
        state.kind = "";
        state.q = "";
        syncControls();
        writeHash();
        applyMatrix();
      });
    }
  }
  function showOpen() {
    var cell = openCell();
    if (!cell || cell.tagName !== "DETAILS") return;
    var body = cell.closest("tbody");
    var key = body ? body.getAttribute("data-group") : null;
    if (key && list(state.fold).indexOf(key) >= 0) {
      state.fold = list(state.fold).filter(function (other) { return other !== key; }).join(",");
    }
    applyMatrix();
    if (!cell.open) cell.open = true;
    cell.scrollIntoView({ block: "center" });
  }
  function openCells() { return document.querySelectorAll("details.cell[open]"); }
  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (!target.classList) return;
    if (target.classList.contains("fold")) {
      var key = target.getAttribute("data-group");
      var folded = list(state.fold).filter(function (other) { return other !== key; });
      if (!target.open) folded.push(key);
      var keys = [];
      each(document.querySelectorAll("details.fold"), function (fold) {
        var name = fold.getAttribute("data-group");
        if (folded.indexOf(name) >= 0) keys.push(name);
      });
      if (keys.join(",") === (state.fold || "")) return;
      state.fold = keys.join(",");
      writeHash();
      applyMatrix();
      return;
    }
    if (!target.classList.contains("cell")) return;
    if (target.open) {
      each(openCells(), function (other) { if (other !== target) other.open = false; });
      state.open = target.id;
      writeHash();
    } else if (state.open === target.id) {
      state.open = "";
      writeHash();
      applyMatrix();
    }
  }, true);
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.close") : null;
    if (button) { button.closest("details").open = false; }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") each(openCells(), function (cell) { cell.open = false; });
  });
  /* Sorting needs this script: its arrows and the words that offer it come with it. */
  document.documentElement.classList.add("js");
  if (board) {
    each(board.querySelectorAll("button.sort"), function (button) {
      var arrow = document.createElement("span");
      arrow.className = "arrow";
      arrow.setAttribute("aria-hidden", "true");
      button.appendChild(arrow);
    });
    var hint = document.getElementById("sort-hint");
    if (hint) hint.textContent = " \u00B7 click a heading to sort by it, again to reverse";
  }
  /* Words offering what only the scripts do (a cell's drill-down, the filters) wait in `data-hint`. */
  each(document.querySelectorAll(".js-hint"), function (hint) { hint.textContent = hint.getAttribute("data-hint"); });
  /* The matrix's columns (columns.js) keep their choice in the address too. */
  function applyColumns() {
    if (window.lobrecColumns) window.lobrecColumns.apply(state.cols || "", state.open || "");
  }
  window.lobrecSetState = function (key, value) {
    state[key] = value;
    writeHash();
    applyColumns();
    applyMatrix();
  };
  function fromHash() {
    state = readHash();
    if (!CELL.test(state.open || "")) state.open = "";
    applyColumns();
    each(openCells(), function (cell) { if (cell.id !== state.open) cell.open = false; });
    syncControls();
    sortBoard();
    applyMatrix();
    showOpen();
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
