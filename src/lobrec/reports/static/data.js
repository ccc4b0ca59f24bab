/* The drill-downs' data (html_celldata), read from the page only when first needed: a cell opened,
   a model's column picked. A large page then loads as fast as its tables. */
var CELLS = null;
function lobrecData() {
  if (CELLS === null) CELLS = JSON.parse(document.getElementById("lobrec-data").textContent);
  return CELLS;
}
