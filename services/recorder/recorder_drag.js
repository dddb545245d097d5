  /* recorder_drag.js: part 3 of the recorder (recorder.parts): drag and drop as one `drag` step.
   * selector and text name the dragged element, value the selector of the element it was dropped on,
   * matched the key nodes of either.
   * - HTML5 drag and drop: dragstart names the dragged element (the closest [draggable=true], link or
   *   image), drop the element under the pointer. A drag the page does not accept ends without a drop
   *   event: nothing happened, nothing is recorded.
   * - A pointer-driven drag (mousedown, moves, mouseup: sortable lists and boards written without HTML5
   *   drag and drop): at mouseup the pointer has moved DRAG_MIN_PX or more and the pressed element, or
   *   one of its DRAG_LEVELS nearest ancestors, has itself moved on the screen or changed its place in
   *   the DOM since mousedown: a text selection or a press on a still button moves nothing. The
   *   dragged element is the innermost one that moved; it is dropped on the topmost element under the
   *   pointer that is neither it nor inside it. The click the browser fires after such a mouseup is the
   *   drag's, not a step. Text fields, selects and range inputs are never dragged (their input is). */
  var DRAG_MIN_PX = 8;
  var DRAG_LEVELS = 4;
  var html5Drag = null; /* {el, trusted}: from dragstart until drop or dragend */
  var pointerDrag = null; /* {x, y, trusted, watch: [{el, x, y, parent, next}]}: from mousedown to mouseup */
  var dragClickUntil = 0;

  function placeOf(el) {
    var r = el.getBoundingClientRect();
    return { el: el, x: r.left, y: r.top, parent: el.parentNode, next: el.nextElementSibling };
  }

  function emitDrag(src, drop, trusted) {
    if (!src || !drop) return;
    noteAction();
    flushAll(true);
    var p = basePayload('drag', src, [src, drop], trusted);
    p.value = selectorOf(drop);
    emit(p);
  }

  function onDragstart(ev) {
    var el = realTarget(ev);
    if (!el) return;
    var d = null;
    try {
      d = el.closest('[draggable=true], a[href], img');
    } catch (e) {
      d = null;
    }
    html5Drag = { el: d || el, trusted: ev.isTrusted };
    pointerDrag = null; /* the browser's drag takes over: no mouseup reaches the page */
    cancelHover();
  }

  function onDrop(ev) {
    var d = html5Drag;
    html5Drag = null;
    if (!d) return; /* something dragged in from outside the page (a file) */
    emitDrag(d.el, realTarget(ev), d.trusted && ev.isTrusted);
  }

  function onDragend() {
    html5Drag = null;
  }

  function dragPointerDown(ev) {
    pointerDrag = null;
    if (ev.button !== 0) return;
    var el = realTarget(ev);
    if (!el || isEditable(el) || el.localName === 'input' || el.localName === 'option') return;
    var watch = [];
    for (var e = el, i = 0; e && i <= DRAG_LEVELS; e = e.parentElement, i++) {
      if (e === document.documentElement || e === document.body) break;
      watch.push(placeOf(e));
    }
    if (watch.length) pointerDrag = { x: ev.clientX, y: ev.clientY, trusted: ev.isTrusted, watch: watch };
  }

  function onMouseup(ev) {
    var d = pointerDrag;
    pointerDrag = null;
    if (!d || ev.button !== 0) return;
    var dx = ev.clientX - d.x, dy = ev.clientY - d.y;
    if (dx * dx + dy * dy < DRAG_MIN_PX * DRAG_MIN_PX) return;
    var src = null;
    for (var i = 0; i < d.watch.length && !src; i++) {
      var w = d.watch[i];
      if (!w.el.isConnected) continue;
      var now = placeOf(w.el);
      var moved = Math.abs(now.x - w.x) >= DRAG_MIN_PX / 2 || Math.abs(now.y - w.y) >= DRAG_MIN_PX / 2;
      if (moved || now.parent !== w.parent || now.next !== w.next) src = w.el;
    }
    if (!src) return;
    var drop = null;
    var under = document.elementsFromPoint(ev.clientX, ev.clientY);
    for (var j = 0; j < under.length && !drop; j++)
      if (under[j] !== src && !src.contains(under[j])) drop = under[j];
    if (!drop) return;
    /* the click the browser fires right after this mouseup, in the same task (a later one is the agent's) */
    dragClickUntil = Date.now() + SUPPRESS_MS;
    setTimeout(function () {
      dragClickUntil = 0;
    }, 0);
    emitDrag(src, drop, d.trusted && ev.isTrusted);
  }

  function dragSwallowsClick(ev) {
    if (ev.type !== 'click' || Date.now() > dragClickUntil) return false;
    dragClickUntil = 0;
    return true;
  }

