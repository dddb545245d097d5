  /* recorder_listeners.js: part 2 of the recorder (recorder.parts): the listeners of clicks, typing,
   * keys, submits and scrolls. It continues the function opened in recorder.js. */

  /* ---------- listeners (capture phase on window: page stopPropagation cannot hide events) ---------- */

  /* Only a click the page received is the agent's. Playwright, when another element would take its
   * click, stops the events in its own capture listener on window (added after ours) and tries again.
   * So a click goes out when it reaches the document (onClickReached), not from window; a click on
   * the page itself (<html>, <body>), and one stopped before the document (by the automation, or by
   * the page's own listener on window, which did receive it), wait RETRY_MS for the automation's
   * retry at the same point: a retry drops them, else they go out. A click on the page itself that
   * was also stopped before the document is dropped by a trusted click at any point: Playwright
   * scrolls the element into view again before each retry (end, center, start), so its retry of a
   * click that a re-render left on <html> lands elsewhere in the viewport. */
  var RETRY_MS = 1500;
  var RETRY_PX = 3;
  var heldClick = null; /* {ev, p}: a click seen on window, not yet seen at the document */
  var pageClick = null; /* {p, x, y, anywhere, timer}: a click waiting for a retry */
  var reachDoc = null; /* the document our reach listeners are on */

  function armReach() {
    if (reachDoc === document) return;
    /* added during the window's capture phase, they still run for this event (DOM: the document's
     * listeners are read when the event gets there); a document that reuses the window gets them too */
    document.addEventListener('click', onClickReached, { capture: true, passive: true });
    document.addEventListener('auxclick', onClickReached, { capture: true, passive: true });
    reachDoc = document;
  }

  function onClickReached(ev) {
    try {
      var h = heldClick;
      if (!h || h.ev !== ev) return;
      heldClick = null;
      var tag = h.p.hints.tag;
      if ((tag === 'html' || tag === 'body') && ev.isTrusted) {
        awaitRetry(h.p, ev);
        return;
      }
      emit(h.p);
    } catch (e) {
      /* never into the page */
    }
  }

  /* A click that may be the automation's miss: it goes out RETRY_MS later, or at the next action or
   * flush, unless a trusted click at the same point comes first (then it was a miss, and is dropped). */
  function awaitRetry(p, ev, anywhere) {
    flushPageClick();
    var pc = { p: p, x: ev.clientX, y: ev.clientY, anywhere: !!anywhere, timer: 0 };
    pc.timer = setTimeout(guard(function () {
      if (pageClick === pc) flushPageClick();
    }), RETRY_MS);
    pageClick = pc;
  }

  /* A click that never reached the document: the page's own capture listener on window swallowed it
   * (the page received it: the agent's click), or the automation did, and retries at the same point. */
  function stoppedBeforeDocument(h) {
    heldClick = null;
    var tag = h.p.hints.tag;
    if (h.ev.isTrusted) awaitRetry(h.p, h.ev, tag === 'html' || tag === 'body');
    else emit(h.p);
  }

  function flushPageClick() {
    var pc = pageClick;
    if (!pc) return 0;
    pageClick = null;
    clearTimeout(pc.timer);
    emit(pc.p);
    return 1;
  }

  function onClick(ev) {
    if (ev.button !== 0 && !(ev.type === 'auxclick' && ev.button === 1)) return;
    if (ev.isTrusted && ev.type === 'click') noteTrustedAct();
    if (heldClick) stoppedBeforeDocument(heldClick); /* dispatched in the same task as this one */
    if (pageClick && ev.isTrusted && (pageClick.anywhere || (Math.abs(ev.clientX - pageClick.x) <= RETRY_PX && Math.abs(ev.clientY - pageClick.y) <= RETRY_PX))) {
      clearTimeout(pageClick.timer); /* the automation clicked again: the first was a miss */
      pageClick = null;
    }
    var target = realTarget(ev);
    var acted = actedOn(target);
    if (!acted) return;
    if (acted.localName === 'select' || acted.localName === 'option' || (target && target.closest && target.closest('select')))
      return; /* a <select>'s choice is recorded by its change event */
    if (suppressed(acted, ev)) return;
    if (dragSwallowsClick(ev)) return; /* the click a pointer drag ends with is the drag's (recorder_drag.js) */
    noteAction();
    flushAll(true, ev.isTrusted ? acted : null);
    var cands = [acted, target];
    var control = null;
    if (acted.localName === 'label') {
      try {
        control = acted.control;
      } catch (e) {
        control = null;
      }
      if (control && control !== target) {
        cands.push(control);
        /* the label's activation clicks its control right after: that is the same step */
        suppress.push({ el: control, form: null, until: Date.now() + SUPPRESS_MS, needDetail0: false });
      }
    }
    var p = basePayload('click', acted, cands, ev.isTrusted);
    /* a link opened in a new tab (Ctrl/Meta/Shift-click, middle click): the monitor takes the tab
     * that opens next for this link's, not for the agent's goto (Chromium reports no opener) */
    if (p.hints.href && (ev.button === 1 || ev.ctrlKey || ev.metaKey || ev.shiftKey)) p.newtab = true;
    var held = { ev: ev, p: p };
    heldClick = held;
    armReach();
    setTimeout(guard(function () {
      if (heldClick === held) stoppedBeforeDocument(held);
    }), 0);
  }

  function onInput(ev) {
    var el = realTarget(ev);
    if (!el) return;
    var real = el;
    var tag = real.localName;
    if (tag === 'select') return; /* change makes the select step */
    if (tag === 'input' && NON_TEXT_INPUTS[real.type]) return; /* the click is the step */
    if (typing && typing.el !== el) flushAll(true);
    noteAction();
    var now = Date.now();
    if (!typing) {
      typing = { el: el, real: real, value: '', password: false, trusted: true, start: now, last: now, url: location.href, snap: null };
    }
    typing.real = real;
    typing.last = now;
    typing.url = location.href;
    /* a trusted input event counts only with a trusted beforeinput (or keydown) into the same target
     * right before it: document.execCommand() from a page script fires a trusted input event alone */
    var caused = !!editCause && editCause.target === ev.target && now - editCause.t <= EDIT_CAUSE_MS;
    if (editCause && editCause.beforeinput) editCause = null;
    typing.trusted = typing.trusted && !!ev.isTrusted && caused;
    try {
      if (real.type === 'password') typing.password = true;
      typing.value = fieldValue(typing);
      /* a snapshot in case the field is gone by the time the step is flushed: taken once per field
       * (selector and key nodes do not change while one types; the value and time are kept apart) */
      if (!typing.snap) {
        typing.snap = basePayload('type', el, [el, real], typing.trusted, now);
        typing.snap.text = '';
      }
      typing.snap.url = location.href;
    } catch (e) {
      /* keep going */
    }
  }

  function onChange(ev) {
    var el = realTarget(ev);
    if (!el) return;
    if (el.localName === 'select') {
      noteAction();
      flushAll(true);
      var cands = [el];
      try {
        for (var i = 0; i < el.selectedOptions.length; i++) cands.push(el.selectedOptions[i]);
      } catch (e) {
        /* no options */
      }
      var p = basePayload('select', el, cands, ev.isTrusted);
      p.value = el.value;
      p.text = optionText(el);
      emit(p);
      return;
    }
    if (typing && typing.el === el) flushType(); /* the field's edit is complete */
  }

  function onBlur(ev) {
    var b = realTarget(ev);
    if (typing && b && ev.target !== window && (typing.el === b || typing.real === b || typing.el === ev.target)) flushType();
  }

  var SCROLL_KEYS = { PageDown: 1, PageUp: 1, ArrowDown: 1, ArrowUp: 1, Home: 1, End: 1, ' ': 1, Spacebar: 1 };

  function onBeforeinput(ev) {
    editCause = ev.isTrusted ? { target: ev.target, t: Date.now(), beforeinput: true } : null;
  }

  function onKeydown(ev) {
    cancelHover();
    var el = realTarget(ev);
    if (ev.isTrusted) editCause = { target: ev.target, t: Date.now(), beforeinput: false };
    if (SCROLL_KEYS[ev.key] && !isEditable(el)) lastScrollInput = { t: Date.now(), how: 'key', trusted: ev.isTrusted };
    if (ev.key !== 'Enter' || ev.isComposing) return;
    if (ev.isTrusted) noteTrustedAct();
    if (!ev.ctrlKey && !ev.metaKey && el && (el.localName === 'textarea' || el.isContentEditable))
      return; /* Enter is text in a multi-line field: part of the typing */
    noteAction();
    flushAll(true);
    var acted = el || document.documentElement;
    var p = basePayload('press', acted, [acted], ev.isTrusted);
    p.key = 'Enter';
    emit(p);
    /* Enter's default action may click the element itself (a link, a button) or the form's default
     * button (implicit submission): those clicks are consequences of this press, not steps. */
    var form = null;
    try {
      form = acted.form || null;
    } catch (e) {
      form = null;
    }
    suppress.push({ el: acted, form: form, until: Date.now() + SUPPRESS_MS, needDetail0: true });
  }

  function onKeypress(ev) {
    if (ev.key === 'Enter' && ev.isTrusted) noteTrustedAct(); /* implicit submission happens on keypress */
  }

  function onSubmit(ev) {
    var form = realTarget(ev);
    if (!form) return;
    noteAction();
    flushAll(true);
    /* the UA fires submit as trusted even for a page's requestSubmit(): trusted only right after a
     * trusted click or Enter, in the same task */
    var p = basePayload('submit', form, null, ev.isTrusted && trustedAct);
    p.text = '';
    emit(p);
  }

  function onScroll(ev) {
    var tg = ev.target;
    if (tg !== document && tg !== window && tg !== document.documentElement && tg !== document.scrollingElement) return;
    if (!burst) {
      var now = Date.now();
      burst = { startY: lastKnownY, start: now, timer: 0, actionSeen: false, quiet: now <= quietUntil, after: lastActionT };
    }
    try {
      clearTimeout(burst.timer);
    } catch (e) {
      /* ignore */
    }
    burst.timer = setTimeout(guard(function () {
      /* trajectory order is action order: a field typed before this burst began goes out first (a
       * type's time is its last input) */
      if (typing && burst && typing.last < burst.start) flushType();
      flushScroll(false, true);
    }), DEBOUNCE);
  }

  function onWheel(ev) {
    lastScrollInput = { t: Date.now(), how: 'wheel', trusted: ev.isTrusted };
  }

  function onTouch(ev) {
    lastScrollInput = { t: Date.now(), how: 'touch', trusted: ev.isTrusted };
  }

  function onMousedown(ev) {
    cancelHover(); /* a click follows: the pointer moved there to click, not to hover */
    dragPointerDown(ev); /* or a pointer-driven drag begins (recorder_drag.js) */
    try {
      var de = document.documentElement;
      if ((ev.target === de || ev.target === document) && (ev.clientX >= de.clientWidth || ev.clientY >= de.clientHeight))
        lastScrollInput = { t: Date.now(), how: 'scrollbar', trusted: ev.isTrusted };
    } catch (e) {
      /* ignore */
    }
  }
