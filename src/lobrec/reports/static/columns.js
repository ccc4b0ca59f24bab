/* The matrix's columns: the page builds the top models'; the reader picks others by name (a
   checkbox each, found by a search), and their columns are built from the data's `columns`. The choice
   lives in the address (`cols=<i>,<j>`: indexes in the leaderboard's order; none: the top ones). */
(function () {
  "use strict";
  var matrix = document.querySelector("table.matrix");
  var box = document.getElementById("columns");
  if (!matrix || !box) return; /* every model's column is in the page */
  /* the models in the leaderboard's order (its rows' data-rank), the columns' order in the data */
  var names = [];
  Array.prototype.forEach.call(document.querySelectorAll("table.leader tbody tr"), function (row) {
    names[Number(row.getAttribute("data-rank"))] = row.cells[0].textContent;
  });
  var top = matrix.tHead.rows[0].cells.length - 1;
  var order = [];
  for (var i = 0; i < top; i += 1) order.push(i);
  var list = document.getElementById("columns-list");
  var query = document.getElementById("columns-q");
  var count = document.getElementById("columns-count");
  var each = function (items, visit) { Array.prototype.forEach.call(items, visit); };

  function text(tag, className, value) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = value;
    return node;
  }
  function cell(id) {
    var data = lobrecData().cells[id];
    var summary = text("summary", "", data[5][0]);
    summary.title = data[5][1];
    if (data[5][2]) summary.appendChild(text("span", "unscored", data[5][2]));
    var details = document.createElement("details");
    details.className = "cell";
    details.id = id;
    details.appendChild(summary);
    var td = document.createElement("td");
    td.className = "cell " + data[2];
    td.appendChild(details);
    return td;
  }
  function build(index) {
    var column = lobrecData().columns[index];
    var head = text("th", "", column[0]);
    head.setAttribute("scope", "col");
    matrix.tHead.rows[0].appendChild(head);
    var row = 0;
    each(matrix.tBodies, function (body, group) {
      each(body.rows, function (tr) {
        if (tr.classList.contains("group")) tr.appendChild(text("td", "group-score", column[2][group]));
        else tr.appendChild(cell(column[1][row++]));
      });
    });
    order.push(index);
  }
  function wanted(value) {
    var picked = (value || "").split(",").filter(function (part) {
      return /^\d+$/.test(part) && Number(part) < names.length;
    }).map(Number).filter(function (index, at, all) { return all.indexOf(index) === at; });
    if (!picked.length) for (var i = 0; i < top; i += 1) picked.push(i);
    return picked;
  }
  /* The column of the open cell (`open`: a cell's id), shown even when not picked: a link to a
     cell stays valid when the ranking moves its model out of the top ones. */
  function openColumn(open) {
    if (!open) return null;
    var cells = lobrecData().cells;
    return Object.prototype.hasOwnProperty.call(cells, open) ? cells[open][1] : null;
  }
  function apply(value, open) {
    var want = wanted(value);
    var extra = openColumn(open);
    if (extra !== null && want.indexOf(extra) < 0) want.push(extra);
    want.forEach(function (index) { if (order.indexOf(index) < 0) build(index); });
    var rows = [matrix.tHead.rows[0]];
    each(matrix.tBodies, function (body) { each(body.rows, function (tr) { rows.push(tr); }); });
    order.forEach(function (index, place) {
      var hide = want.indexOf(index) < 0;
      rows.forEach(function (tr) { if (tr.cells[place + 1].hidden !== hide) tr.cells[place + 1].hidden = hide; });
    });
    each(list.querySelectorAll("input"), function (input) {
      input.checked = want.indexOf(Number(input.value)) >= 0;
    });
    count.textContent = want.length + " of " + names.length + " models shown";
  }
  function choose(want) {
    var isTop = want.length === top && want.every(function (index) { return index < top; });
    if (window.lobrecSetState) window.lobrecSetState("cols", isTop ? "" : want.join(","));
  }
  names.forEach(function (name, index) {
    var input = document.createElement("input");
    input.type = "checkbox";
    input.value = String(index);
    var label = document.createElement("label");
    label.appendChild(input);
    label.appendChild(document.createTextNode(" " + (index + 1) + ". " + name));
    var item = document.createElement("li");
    item.appendChild(label);
    list.appendChild(item);
  });
  list.addEventListener("change", function () {
    var want = [];
    each(list.querySelectorAll("input"), function (input) { if (input.checked) want.push(Number(input.value)); });
    choose(want);
  });
  query.addEventListener("input", function () {
    var needle = query.value.trim().toLowerCase();
    each(list.children, function (item, index) {
      item.hidden = needle !== "" && names[index].toLowerCase().indexOf(needle) < 0;
    });
  });
  document.getElementById("columns-top").addEventListener("click", function () { choose([]); });
  box.hidden = false;
  window.lobrecColumns = { apply: apply };
})();
