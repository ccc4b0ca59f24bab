/* A cell's drill-down, built when the cell is first opened, from CELLS (html_celldata.py): the
   words come ready from the report; this lays them out, every text set as text, never as markup. */
(function () {
  "use strict";
  if (!document.getElementById("lobrec-data")) return;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined || child === "") return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function sub(text) { return el("p", {"class": "sub"}, [text]); }
  function pre(text) { return el("pre", {"class": "text"}, [text]); }
  function badge(status) {
    var shown = CELLS.status[status];
    return el("span", {"class": "badge " + status}, [shown[0] + " " + shown[1]]);
  }
  function fragment(nodes) {
    var out = document.createDocumentFragment();
    nodes.forEach(function (node) { if (node) out.appendChild(node); });
    return out;
  }

  function expectedSide(step, failing, namesWrong) {
    if (!step.calls) {
      var answer = step.answer ? [el("p", {"class": "sub"}, ["Reference answer"]), pre(step.answer)] : [];
      return fragment([el("p", {}, ["No call: a text answer."])].concat(answer));
    }
    var bad = {};
    failing.forEach(function (pair) { bad[pair[0] + "\u0000" + pair[1]] = true; });
    var lead = step.calls.length > 1 ? step.calls.length + " calls in one response:" : "A call:";
    var items = step.calls.map(function (call) {
      var body;
      if (call.checks.length) {
        body = el("ul", {"class": "checks"}, call.checks.map(function (check) {
          var failed = bad[call.name + "\u0000" + check[0]] === true;
          return el("li", {"class": failed ? "failing" : "check"}, [
            failed ? el("span", {"class": "mark"}, ["\u2717"]) : null,
            failed ? " " : null,
            el("code", {}, [check[1]])
          ]);
        }));
      } else {
        body = sub("no argument checks");
      }
      var result = call.result === null ? [] : [sub("Result sent back for the next step"), pre(call.result)];
      return el("li", {}, [el("code", {"class": namesWrong ? "name failing" : "name"}, [call.name]), body].concat(result));
    });
    return fragment([el("p", {}, [lead]), el("ol", {"class": "calls"}, items)]);
  }

  function observedSide(observed) {
    var parts = [];
    if (observed.calls.length) {
      parts.push(el("ol", {"class": "calls"}, observed.calls.map(function (call) {
        var errors = call.errors.length
          ? el("ul", {"class": "schema-errors"}, call.errors.map(function (e) { return el("li", {}, [e]); }))
          : null;
        return el("li", {}, [
          el("code", {"class": "name"}, [call.name]), " ",
          call.flag === null ? null : el("span", {"class": "flag bad"}, [call.flag]),
          el("pre", {"class": "args"}, [call.args]), errors
        ]);
      })));
    } else {
      parts.push(el("p", {}, ["No call."]));
    }
    if (observed.content) parts.push(sub("Text"), pre(observed.content));
    return fragment(parts);
  }

  /* `calls[0].arguments.path` may break only before a `.`, never inside a name */
  function pathParts(path) {
    var parts = [];
    path.split(/(?=\.)/).forEach(function (part, index) {
      if (index) parts.push(el("wbr", {}, []));
      parts.push(part);
    });
    return parts;
  }

  function mismatches(rows) {
    if (!rows.length) return null;
    var labels = ["Path", "Expected", "Got", "Reason"];
    return el("table", {"class": "mismatches"}, [
      el("caption", {}, ["\u2717 Why it failed"]),
      el("thead", {}, [el("tr", {}, labels.map(function (label) { return el("th", {}, [label]); }))]),
      el("tbody", {}, rows.map(function (row) {
        return el("tr", {}, row.map(function (cell, index) {
          var shown = index === 0 ? el("code", {"class": "path"}, pathParts(cell))
            : index < 3 ? el("code", {}, [cell]) : cell;
          return el("td", {"data-label": labels[index]}, [shown]);
        }));
      }))
    ]);
  }

  function stepSection(step, suiteSteps) {
    var expected = step.expected === null
      ? sub("not in the suite file")
      : expectedSide(suiteSteps[step.expected], step.failing, step.names_wrong);
    var observed = step.observed === null ? sub("\u2014") : observedSide(step.observed);
    var kind = step.observed && step.observed.kind ? el("p", {"class": "kind"}, ["Failure kind: " + step.observed.kind]) : null;
    return el("section", {"class": "step " + step.state}, [
      el("h4", {}, [step.heading]), kind,
      el("div", {"class": "cols"}, [
        el("div", {}, [el("h5", {}, ["Expected"]), expected]),
        el("div", {}, [el("h5", {}, ["Model"]), observed])
      ]),
      step.observed === null ? null : mismatches(step.observed.mismatches)
    ]);
  }

  function apiCalls(rows) {
    if (!rows.length) return null;
    var heads = ["Step", "Attempt", "Status", "Latency", "Cost", "Answered by", "Error"];
    /* seven columns: on a phone they scroll in their own box, the panel around them fits the screen */
    return el("details", {"class": "api"}, [
      el("summary", {}, ["API calls"]),
      el("div", {"class": "scroll"}, [el("table", {"class": "plain"}, [
        el("thead", {}, [el("tr", {}, heads.map(function (h) { return el("th", {}, [h]); }))]),
        el("tbody", {}, rows.map(function (row) {
          return el("tr", {}, row.map(function (cell) { return el("td", {}, [cell]); }));
        }))
      ])])
    ]);
  }

  function runParts(run, status, kase) {
    var verdict = CELLS.verdicts[run[2]];
    var parts = [];
    var steps = kase ? kase.steps : [];
    if (verdict.missing) {
      parts.push(el("p", {"class": "reason"}, ["This case is not in this model's results."]));
    } else if (verdict.status !== "scored") {
      var word = verdict.status.charAt(0).toUpperCase() + verdict.status.slice(1);
      parts.push(el("p", {"class": "reason " + status}, [el("strong", {}, [word + ":"]), " " + verdict.reason]));
    }
    if (!verdict.missing) {
      verdict.steps.forEach(function (step) { parts.push(stepSection(step, steps)); });
      if (verdict.unscored) {
        steps.forEach(function (step, index) {
          parts.push(el("section", {"class": "step unreached"}, [
            el("h4", {}, ["Step " + (index + 1) + " \u00B7 expected"]), expectedSide(step, [], false)
          ]));
        });
      }
      parts.push(apiCalls(run[3]));
    }
    return parts;
  }

  function panel(cell) {
    var kase = CELLS.cases[cell[0]].case;
    var parts = [
      el("div", {"class": "panel-head"}, [
        el("div", {}, [el("strong", {}, [CELLS.cases[cell[0]].id]), " \u00B7 " + CELLS.columns[cell[1]][0] + " ", badge(cell[2])]),
        el("button", {"type": "button", "class": "close", "aria-label": "Close"}, ["Close \u2715"])
      ])
    ];
    if (kase) {
      parts.push(el("div", {"class": "conversation"}, [kase.note ? sub(kase.note) : null].concat(
        kase.messages.map(function (message) {
          return el("p", {"class": "msg"}, [el("span", {"class": "role"}, [message[0]]), " " + message[1]]);
        })
      )));
    }
    var runs = cell[4];
    if (cell[3]) {
      var line = el("p", {"class": "runs"}, []);
      runs.forEach(function (run, index) {
        if (index) line.appendChild(document.createTextNode(" \u00B7 "));
        line.appendChild(document.createTextNode("Run " + run[0] + " "));
        line.appendChild(badge(run[1]));
      });
      parts.push(line);
      runs.forEach(function (run) {
        var attrs = {"class": "run"};
        if (run[0] === 1) attrs.open = "";
        parts.push(el("details", attrs, [
          el("summary", {}, ["Run " + run[0] + " ", badge(run[1])])
        ].concat(runParts(run, run[1], kase))));
      });
    } else {
      parts = parts.concat(runParts(runs[0], cell[2], kase));
    }
    return el("div", {"class": "panel", "role": "dialog"}, parts);
  }

  /* Build a cell's drill-down the first time it opens (before the report's own toggle handler). */
  function build(details) {
    if (!details.classList || !details.classList.contains("cell") || details.querySelector(".panel")) return;
    lobrecData();
    if (!Object.prototype.hasOwnProperty.call(CELLS.cells, details.id)) return;
    details.appendChild(panel(CELLS.cells[details.id]));
  }
  document.addEventListener("toggle", function (event) { if (event.target.open) build(event.target); }, true);
  window.lobrecBuildCell = build;
})();
