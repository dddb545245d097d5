// HTML5 drag and drop into #done-zone; a pointer-driven board (mousedown, the card follows the pointer,
// mouseup drops it into the column under the pointer), as sortable-list libraries do without HTML5 DnD.
var out = document.getElementById('out');
document.querySelectorAll('#backlog li').forEach(function (li) {
  li.addEventListener('dragstart', function (e) { e.dataTransfer.setData('text/plain', li.id); });
});
var zone = document.getElementById('done-zone');
zone.addEventListener('dragover', function (e) { e.preventDefault(); });
zone.addEventListener('drop', function (e) {
  e.preventDefault();
  var li = document.getElementById(e.dataTransfer.getData('text/plain'));
  if (li) { zone.appendChild(li); out.textContent = 'done: ' + li.textContent; }
});

var drag = null;
document.querySelectorAll('.card').forEach(function (card) {
  card.addEventListener('mousedown', function (e) {
    drag = { card: card, x: e.clientX, y: e.clientY };
    card.style.pointerEvents = 'none'; // the column under the pointer stays findable
  });
});
document.addEventListener('mousemove', function (e) {
  if (drag) drag.card.style.transform = 'translate(' + (e.clientX - drag.x) + 'px,' + (e.clientY - drag.y) + 'px)';
});
document.addEventListener('mouseup', function (e) {
  if (!drag) return;
  var card = drag.card;
  drag = null;
  card.style.transform = '';
  card.style.pointerEvents = '';
  var col = document.elementsFromPoint(e.clientX, e.clientY).find(function (el) { return el.classList.contains('col'); });
  if (col && col !== card.parentElement) { col.appendChild(card); out.textContent = 'moved ' + card.id + ' to ' + col.id; }
});
document.getElementById('save').addEventListener('click', function () { out.textContent = 'saved'; });
