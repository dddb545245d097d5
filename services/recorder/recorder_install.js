  /* recorder_install.js: part 4 of the recorder (recorder.parts): hover, the install of every listener
   * (capture phase on window) and the monitor's hooks; it closes the function opened in recorder.js. */

  /* ---------- hover: the pointer rests on an element and that reveals content (hover menus) ---------- */
  var HOVER_MS = 500;
  var HOVER_SCOPE_MAX = 400; /* elements counted per check: bounded on any page */
  var hover = null; /* {el, acted, scope, before, timer} */

  function visibleCount(scope) {
    var n = 0;
    var w = document.createTreeWalker(scope, 1);
    for (var i = 0, e = w.nextNode(); e && i < HOVER_SCOPE_MAX; i++, e = w.nextNode()) {
      var r = e.getClientRects();
      if (r.length && r[0].width > 0 && r[0].height > 0 && getComputedStyle(e).visibility !== 'hidden') n++;
    }
    return n;
  }

  /* A CSS-only menu (`li:hover > ul {display: block}`) is already open when mouseover fires: it is
   * found by the style rules instead: a `:hover` rule that shows something which is now shown inside
   * the scope. Bounded: at most 3,000 rules, 50 elements each; cross-origin sheets cannot be read. */
  function cssHoverReveals(scope) {
    var seen = 0;
    for (var i = 0; i < document.styleSheets.length; i++) {
      var rules;
      try {
        rules = document.styleSheets[i].cssRules;
      } catch (e) {
        continue;
      }
      for (var j = 0; j < rules.length && seen < 3000; j++, seen++) {
        var r = rules[j];
        if (!r.selectorText || r.selectorText.indexOf(':hover') < 0) continue;
        var st = r.style;
        if (!(st.display && st.display !== 'none') && st.visibility !== 'visible' && !(st.opacity && +st.opacity > 0)) continue;
        var els;
        try {
          els = scope.querySelectorAll(r.selectorText);
        } catch (e) {
          continue;
        }
        for (var k = 0; k < els.length && k < 50; k++) if (els[k].getClientRects().length) return true;
      }
    }
    return false;
  }

  function cancelHover() {
    if (!hover) return;
    clearTimeout(hover.timer);
    hover = null;
  }

  function onMouseover(ev) {
    if (!ev.isTrusted) return;
    var el = realTarget(ev);
    if (!el || el === document.documentElement || el === document.body) return cancelHover();
    if (hover && hover.el === el) return;
    cancelHover();
    var acted = actedOn(el);
    /* where a menu opens: the item's list entry, a menu or navigation container, or the parent */
    var scope = null;
    try {
      scope = acted.closest('li, [role=menu], [role=menubar], nav, [aria-haspopup]') || acted.parentElement || acted;
    } catch (e) {
      scope = acted;
    }
    var h = { el: el, acted: acted, scope: scope, before: visibleCount(scope), timer: 0, t: Date.now() };
    h.timer = setTimeout(guard(function () {
      if (hover !== h) return;
      hover = null;
      if (!h.el.isConnected || (visibleCount(h.scope) <= h.before && !cssHoverReveals(h.scope))) return;
      flushAll(true);
      noteAction();
      emit(basePayload('hover', h.acted, [h.acted, h.el], true, h.t)); /* its time: when the pointer came */
    }), HOVER_MS);
    hover = h;
  }

  function onLoadish() {
    quietUntil = Date.now() + QUIET_MS;
    settleUntil = Date.now() + SETTLE_MS;
  }

  function onLeave(ev) {
    if (ev.type === 'visibilitychange' && document.visibilityState !== 'hidden') return;
    flushAll(false);
  }

  function guard(fn) {
    return function (ev) {
      try {
        fn(ev);
      } catch (e) {
        /* never into the page */
      }
    };
  }

  try {
    var opts = { capture: true, passive: true };
    var on = [
      ['click', onClick],
      ['auxclick', onClick],
      ['beforeinput', onBeforeinput],
      ['input', onInput],
      ['change', onChange],
      ['blur', onBlur],
      ['keydown', onKeydown],
      ['keypress', onKeypress],
      ['submit', onSubmit],
      ['scroll', onScroll],
      ['wheel', onWheel],
      ['touchmove', onTouch],
      ['mousedown', onMousedown],
      ['mouseover', onMouseover],
      ['mouseup', onMouseup],
      ['dragstart', onDragstart],
      ['drop', onDrop],
      ['dragend', onDragend],
      ['DOMContentLoaded', onLoadish],
      ['load', onLoadish],
      ['pageshow', onLoadish],
      ['hashchange', onLoadish],
      ['pagehide', onLeave],
      ['beforeunload', onLeave],
      ['visibilitychange', onLeave]
    ];
    for (var i = 0; i < on.length; i++) {
      on[i][1] = guard(on[i][1]);
      window.addEventListener(on[i][0], on[i][1], opts);
    }
    /* content added, removed or rewritten: the page is still settling (noteSettling); attributes are left
     * out, a hover style or a ticking progress bar is no settling */
    try {
      new MutationObserver(guard(noteSettling)).observe(document, { childList: true, characterData: true, subtree: true });
    } catch (e) {
      /* no observer: the quiet time is QUIET_MS after the action or load */
    }
    /* the document's click listeners too (recorder_listeners.js), now: ahead of the page's own */
    armReach();
    /* A popup's or a frame's first, empty document navigated to a same-origin page keeps its Window
     * (HTML: the initial about:blank's Window is reused) and this world with it, so this script does
     * not run again; chromium-headless-shell then stops calling the listeners this world added to the
     * reused window until a listener of the same type is added again (seen with Chromium 156: nothing
     * was recorded on such a page). The monitor calls this after such a navigation (our context
     * survived it): every listener is removed and added again, the same functions, so none doubles. */
    Object.defineProperty(globalThis, '__kn_rearm_' + cfg.binding, {
      value: function () {
        try {
          for (var k = 0; k < on.length; k++) {
            window.removeEventListener(on[k][0], on[k][1], opts);
            window.addEventListener(on[k][0], on[k][1], opts);
          }
          return true;
        } catch (e) {
          return false;
        }
      },
      enumerable: false
    });
  } catch (e) {
    /* nothing recorded, nothing broken */
  }

  /* The monitor names the <iframe> elements of frame paths with this (Runtime.callFunctionOn). */
  try {
    Object.defineProperty(globalThis, '__kn_selector_' + cfg.binding, {
      value: function (el) {
        try {
          return selectorOf(el);
        } catch (e) {
          return '';
        }
      },
      enumerable: false
    });
  } catch (e) {
    /* ignore */
  }

  /* The monitor's way to collect a pending type (e.g. before it ends a run): Runtime.evaluate in this world. */
  try {
    Object.defineProperty(globalThis, '__kn_flush_' + cfg.binding, {
      value: function () {
        try {
          return flushAll(false);
        } catch (e) {
          return 0;
        }
      },
      enumerable: false
    });
  } catch (e) {
    /* ignore */
  }
})();
