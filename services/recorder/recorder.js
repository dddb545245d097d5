/*
 * keynode in-page event recorder (services/recorder/README.md is its contract).
 *
 * The monitor injects this file with Page.addScriptToEvaluateOnNewDocument {source, runImmediately: true,
 * worldName} into an isolated world, after Runtime.addBinding {name, executionContextName: worldName}.
 * Before injecting, it replaces the one config placeholder below (the only occurrence of that token in this
 * file) with a JSON object: {"binding": "kn_<random>", "nodes": [{"id", "target", "selector", "xpath",
 * "netloc", "include"}], "scroll_debounce_ms": 400}.
 *
 * Everything here runs in the isolated world: page scripts cannot see or patch our globals, prototypes or the
 * binding; they share only the DOM (and the events dispatched on it) with us.
 * Each recorded action is sent as one JSON string through the binding. Nothing here may throw into the page.
 *
 * The script is kept in parts, concatenated in the order of recorder.parts (the monitor embeds the whole):
 * this file (config, selectors, key-node matching, pending type and scroll), recorder_listeners.js (the
 * input listeners), recorder_drag.js (drag and drop), recorder_install.js (hover, the listeners' install
 * and the monitor's hooks). Only the concatenation is valid JavaScript: one IIFE.
 */
(function () {
  'use strict';
  var cfg;
  try {
    cfg = __KN_CONFIG__;
  } catch (e) {
    return; /* not configured: do nothing */
  }
  try {
    if (!cfg || typeof cfg.binding !== 'string' || !cfg.binding) return;
    var G = globalThis;
    var MARK = '__kn_recorder_installed';
    if (G[MARK]) return; /* idempotent: a second injection into the same world does nothing */
    Object.defineProperty(G, MARK, { value: cfg.binding, enumerable: false });
  } catch (e) {
    return;
  }

  var send = globalThis[cfg.binding]; /* captured once: the world's own binding function */
  var NODES = Array.isArray(cfg.nodes) ? cfg.nodes : [];
  var DEBOUNCE = typeof cfg.scroll_debounce_ms === 'number' && cfg.scroll_debounce_ms >= 0 ? cfg.scroll_debounce_ms : 400;
  var SHOWS = cfg.shows === true; /* each action's payload says what the page showed (basePayload) */
  var TEXT_MAX = 200;
  var SUPPRESS_MS = 1000; /* UA-simulated clicks that follow an Enter press or a label click */
  var EDIT_CAUSE_MS = 1000; /* a trusted keydown this recent into a field makes its input events trusted */
  var SCROLL_INPUT_MS = 1000; /* a wheel/key/touch this recent makes a scroll burst agent-driven */
  var QUIET_MS = 500; /* a script scroll starting this soon after an action or a load is its side effect */
  /* the page is still settling from an action or a load while its DOM changes this long after it: each
   * change reopens the quiet time, so a page scrolled by the render of its late data or restoring its
   * scroll after it (Verdaccio's home list, ~1 s after the route change under load) is a side effect, while an agent's
   * script scroll on a page that has stopped changing is a step */
  var SETTLE_MS = 3000;
  var SCRIPT_HOLD_MS = 1200; /* a settled script scroll waits this long for the click it brought into view */
  var IN_FRAME = false;
  try {
    IN_FRAME = window.top !== window;
  } catch (e) {
    IN_FRAME = true;
  }

  var INTERACTIVE =
    'a, button, input, select, textarea, label, option, summary, [role=button], [role=link], [role=option], ' +
    '[role=checkbox], [role=radio], [role=switch], [role=menuitem], [role=tab], [onclick]';
  var TOLERANT_TAGS = { span: 1, div: 1, li: 1, ul: 1, p: 1, h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1 };
  var NON_TEXT_INPUTS = { checkbox: 1, radio: 1, submit: 1, button: 1, reset: 1, image: 1 };

  /* ---------- output ---------- */

  function clean(s) {
    if (typeof s !== 'string') return s;
    s = s.replace(/\u0000/g, '');
    if (typeof s.toWellFormed === 'function') return s.toWellFormed();
    return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/g, '$1\ufffd');
  }

  function emit(p) {
    try {
      var f = typeof send === 'function' ? send : globalThis[cfg.binding];
      if (typeof f !== 'function') return;
      for (var k in p) if (typeof p[k] === 'string') p[k] = clean(p[k]);
      if (p.hints) for (var h in p.hints) p.hints[h] = clean(p.hints[h]);
      f(JSON.stringify(p));
    } catch (e) {
      /* never into the page */
    }
  }

  /* ---------- elements, selectors, text ---------- */

  function asElement(n) {
    if (!n) return null;
    if (n.nodeType === 1) return n;
    if (n.nodeType === 3 || n.nodeType === 8) return n.parentElement;
    if (n.nodeType === 9) return n.documentElement;
    if (n === window) return document.documentElement;
    return null;
  }

  function actedOn(target) {
    var el = asElement(target);
    if (!el) return null;
    try {
      return el.closest(INTERACTIVE) || el;
    } catch (e) {
      return el;
    }
  }

  /* scope: the document, or the open shadow root el lives in (selectors pierce open roots, see
   * selectorOf) */
  function uniqueStableId(el, scope) {
    var id = el.id;
    if (typeof id !== 'string' || !id || knGeneratedId(id)) return false; /* generated.js */
    try {
      return (scope || document).querySelectorAll('#' + CSS.escape(id)).length === 1;
    } catch (e) {
      return false;
    }
  }

  function pathOf(el, full, scope) {
    scope = scope || document;
    var segs = [];
    var cur = el;
    var root = document.documentElement;
    while (cur && cur.nodeType === 1) {
      if (cur === root) {
        segs.unshift('html');
        break;
      }
      var anchor = !full && cur !== el ? anchorOf(cur, scope) : '';
      if (anchor) {
        segs.unshift(anchor);
        break;
      }
      var tag = cur.localName;
      var parent = cur.parentNode;
      if (!parent || (parent.nodeType !== 1 && parent.nodeType !== 11)) {
        segs.unshift(CSS.escape(tag));
        break;
      }
      if (parent.nodeType === 11) {
        /* a top-level element of a shadow root: no combinator above it */
        var n11 = 0;
        var i11 = 0;
        for (var s11 = parent.firstElementChild; s11; s11 = s11.nextElementSibling) {
          if (s11.localName === tag) {
            n11++;
            if (s11 === cur) i11 = n11;
          }
        }
        segs.unshift(full || n11 > 1 ? CSS.escape(tag) + ':nth-of-type(' + i11 + ')' : CSS.escape(tag));
        break;
      }
      var count = 0;
      var idx = 0;
      for (var s = parent.firstElementChild; s; s = s.nextElementSibling) {
        if (s.localName === tag) {
          count++;
          if (s === cur) idx = count;
        }
      }
      segs.unshift(full || count > 1 ? CSS.escape(tag) + ':nth-of-type(' + idx + ')' : CSS.escape(tag));
      cur = parent;
    }
    return segs.join(' > ');
  }

  function resolvesTo(sel, el, scope) {
    try {
      return (scope || document).querySelector(sel) === el;
    } catch (e) {
      return false;
    }
  }

  /* Attributes people put on elements for tests, in the order Playwright's codegen reads them. */
  var TEST_ID_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa'];

  /* sel names el and nothing else in scope */
  function onlyMatch(sel, el, scope) {
    try {
      var all = scope.querySelectorAll(sel);
      return all.length === 1 && all[0] === el;
    } catch (e) {
      return false;
    }
  }

  /* prefix[name="v"], the value as a CSS string: only a quote, a backslash and line breaks escaped,
   * so that it reads as written (a[href="#second"]) */
  function attrSel(prefix, name, v) {
    var q = String(v).replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\a ').replace(/\r/g, '\\d ').replace(/\f/g, '\\c ');
    return prefix + '[' + name + '="' + q + '"]';
  }

  /* el's test id or stable id, when it names el alone: what a path may start from */
  function anchorOf(el, scope) {
    for (var i = 0; i < TEST_ID_ATTRS.length; i++) {
      var v = el.getAttribute(TEST_ID_ATTRS[i]);
      if (v && !knGeneratedId(v) && onlyMatch(attrSel('', TEST_ID_ATTRS[i], v), el, scope)) return attrSel('', TEST_ID_ATTRS[i], v);
    }
    if (uniqueStableId(el, scope) && resolvesTo('#' + CSS.escape(el.id), el, scope)) return '#' + CSS.escape(el.id);
    return '';
  }

  /* The selector of el within scope (its document or its shadow root), as a person or Playwright's
   * codegen would write it, in plain CSS (query.js): a test id, a stable id, a field's name, a link's
   * href, an accessible name given by aria-label (with its role when explicit); a structural path
   * only when none of these names el alone, and then from the nearest ancestor that anchorOf names. */
  function selectorIn(el, scope) {
    try {
      var anchor = anchorOf(el, scope);
      if (anchor) return anchor;
      var tag = el.localName;
      var name = el.getAttribute('name');
      if (name && (tag === 'input' || tag === 'select' || tag === 'textarea')) {
        var byName = attrSel(tag, 'name', name);
        if (onlyMatch(byName, el, scope)) return byName;
      }
      var href = tag === 'a' ? el.getAttribute('href') : null;
      if (href && href !== '#' && !/^javascript:/i.test(href) && onlyMatch(attrSel('a', 'href', href), el, scope)) return attrSel('a', 'href', href);
      var label = el.getAttribute('aria-label');
      if (label) {
        var role = el.getAttribute('role');
        var byLabel = attrSel(role ? attrSel(tag, 'role', role) : tag, 'aria-label', label);
        if (onlyMatch(byLabel, el, scope)) return byLabel;
      }
      var p = pathOf(el, false, scope);
      if (resolvesTo(p, el, scope)) return p;
      return pathOf(el, true, scope);
    } catch (e) {
      try {
        return pathOf(el, true, scope);
      } catch (e2) {
        return '';
      }
    }
  }

  /* Piercing selector: one selector per tree, outermost first, joined with " >> "; each part after
   * the first is looked up in the open shadow root of what the part before it names. */
  var PIERCE = ' >> ';
  function selectorOf(el) {
    if (!el || el.nodeType !== 1) return '';
    var parts = [];
    for (var depth = 0; el && depth < 32; depth++) {
      var root = el.getRootNode ? el.getRootNode() : document;
      var inShadow = root && root.nodeType === 11 && root.host;
      parts.unshift(selectorIn(el, inShadow ? root : document));
      if (!inShadow) break;
      el = root.host;
    }
    return parts.join(PIERCE);
  }

  /* The element the agent acted on: the innermost target, also inside open shadow roots (a closed
   * root's contents stay hidden: its host is the target). */
  function realTarget(ev) {
    try {
      var path = ev.composedPath();
      if (path && path[0] && path[0].nodeType === 1) return path[0];
      if (path && path[0] && path[0].nodeType === 3) return path[0].parentElement;
    } catch (e) {
      /* fall back */
    }
    return asElement(ev.target);
  }

  /* A custom element without an open shadow root: what an agent acted on inside a closed shadow
   * root is reported as its host, flagged (the page's closed roots cannot be opened from here). */
  function closedHost(el) {
    try {
      return !!el && el.localName.indexOf('-') > 0 && !el.shadowRoot;
    } catch (e) {
      return false;
    }
  }

  function collapse(s) {
    s = String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
    if (s.length > TEXT_MAX) s = Array.from(s).slice(0, TEXT_MAX).join('');
    return s;
  }

  function visibleText(el) {
    try {
      if (!el || el.nodeType !== 1) return '';
      var tag = el.localName;
      if (tag === 'input') return NON_TEXT_INPUTS[el.type] && el.type !== 'checkbox' && el.type !== 'radio' ? collapse(el.value) : '';
      if (tag === 'textarea') return '';
      if (tag === 'select') return optionText(el);
      if (largerThan(el, BIG_SUBTREE)) return boundedText(el);
      return collapse(typeof el.innerText === 'string' ? el.innerText : el.textContent);
    } catch (e) {
      return '';
    }
  }

  /* innerText lays out the whole subtree: on a container of a 100k-element page that is tens of ms per
   * action. Past BIG_SUBTREE elements the text is read from text nodes instead, in document order,
   * skipping script/style/template/noscript, and only until there is enough of it. */
  var BIG_SUBTREE = 2000;
  var SKIP_TEXT = { script: 1, style: 1, template: 1, noscript: 1 };
  function largerThan(el, n) {
    var w = document.createTreeWalker(el, 1);
    for (var i = 0; i < n; i++) if (!w.nextNode()) return false;
    return true;
  }
  function boundedText(el) {
    var w = document.createTreeWalker(el, 4, {
      acceptNode: function (t) {
        for (var p = t.parentElement; p && p !== el; p = p.parentElement) if (SKIP_TEXT[p.localName]) return 2;
        return 1;
      }
    });
    var s = '';
    for (var t = w.nextNode(); t && s.length < TEXT_MAX * 4; t = w.nextNode()) s += ' ' + t.data;
    return collapse(s);
  }

  function optionText(sel) {
    try {
      var o = sel.selectedOptions && sel.selectedOptions[0];
      return o ? collapse(o.text) : '';
    } catch (e) {
      return '';
    }
  }

  function hintsOf(el) {
    var h = {};
    try {
      h.tag = el.localName;
      var a = {
        id: knGeneratedId(el.id) ? null : el.id, /* a generated id says nothing the next build keeps */
        name: el.getAttribute('name'),
        aria_label: el.getAttribute('aria-label'),
        role: el.getAttribute('role'),
        href: el.localName === 'a' && el.hasAttribute('href') ? el.href : null
      };
      for (var k in a) if (typeof a[k] === 'string' && a[k]) h[k] = a[k].length > 500 ? a[k].slice(0, 500) : a[k];
    } catch (e) {
      /* partial hints are fine */
    }
    return h;
  }

  /* ---------- key-node matching (WebCanvas element-path semantics, evaluated live) ---------- */

  function siteToken(host) {
    var d1 = host.indexOf('.');
    if (d1 < 0) return '';
    if (host.slice(0, 3) === 'www') {
      var d2 = host.indexOf('.', d1 + 1);
      return d2 < 0 ? '' : host.slice(d1 + 1, d2);
    }
    return host.slice(0, d1);
  }

  function resolveRef(node) {
    var sel = typeof node.selector === 'string' ? node.selector.trim() : '';
    if (!sel) return null;
    try {
      if (node.xpath) {
        var r = document.evaluate(sel, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null);
        return asElement(r.singleNodeValue);
      }
      return knQuery(sel); /* query.js: light DOM first, then open shadow roots; chains */
    } catch (e) {
      return null; /* an invalid selector matches nothing */
    }
  }

  /* A cheap test before the document-wide lookup (on a 100k-element page that lookup is the recorder's
   * main cost, and a miss in the light DOM also walks every open shadow root): a plain CSS reference can
   * only match when a candidate matches the selector, or something inside the acted-on element does
   * (ancestor tolerance, include); for a piercing chain, its last part. XPath references are not
   * pre-tested. */
  function mayMatch(node, cands) {
    var sel = typeof node.selector === 'string' ? node.selector.trim() : '';
    if (!sel || node.xpath) return true;
    var parts = knParts(sel);
    if (!parts) return false; /* an empty chain part: matches nothing */
    sel = parts[parts.length - 1]; /* a piercing chain: its last part, in the candidate's own tree */
    try {
      for (var i = 0; i < cands.length; i++) if (cands[i] && cands[i].nodeType === 1 && cands[i].matches(sel)) return true;
      return !!(cands[0] && cands[0].querySelector && cands[0].querySelector(sel));
    } catch (e) {
      return false; /* an invalid selector matches nothing */
    }
  }

  /* cands: the acted-on element first, then further elements that count as "the same action"
   * (the raw event target, a label's control, a select's chosen options). */
  function matchedIds(cands) {
    var out = [];
    var token = null;
    for (var i = 0; i < NODES.length; i++) {
      try {
        var n = NODES[i];
        if (!n || typeof n.id !== 'string') continue;
        if (typeof n.netloc === 'string') {
          if (token === null) token = siteToken(location.host);
          if (token !== n.netloc) continue;
        }
        if (!mayMatch(n, cands)) continue;
        var ref = resolveRef(n);
        if (!ref) continue;
        var hit = false;
        for (var c = 0; c < cands.length && !hit; c++) if (cands[c] && cands[c] === ref) hit = true;
        var acted = cands[0];
        if (!hit && acted && TOLERANT_TAGS[ref.localName]) {
          var a = ref.parentElement;
          for (var up = 0; up < 3 && a && !hit; up++, a = a.parentElement) if (a === acted) hit = true;
        }
        if (!hit && n.include && acted && acted !== ref && acted.contains(ref)) hit = true;
        if (hit && out.indexOf(n.id) < 0) out.push(n.id);
      } catch (e) {
        /* one bad node never hides the others */
      }
    }
    return out;
  }

  function basePayload(type, el, cands, trusted, t) {
    var p = {
      type: type,
      selector: selectorOf(el),
      text: visibleText(el),
      value: null,
      key: null,
      url: location.href,
      trusted: !!trusted,
      matched: cands ? matchedIds(cands) : [],
      frame: IN_FRAME,
      t: t || Date.now(),
      hints: el ? hintsOf(el) : {}
    };
    if (closedHost(el)) p.shadow_closed = true;
    /* `keynode record`: what the page showed as the action came, before its default action (shows.js)
     * - the step before's baseline, had even when this action navigates away at once */
    if (SHOWS && !IN_FRAME) {
      try {
        p.shows = knShows();
      } catch (e) {
        /* no baseline from this action */
      }
    }
    /* where the element was when it was acted on: a trace shows it even when the page is gone */
    if (el && type !== 'scroll') {
      try {
        var r = el.getBoundingClientRect();
        p.box = { x: r.x, y: r.y, width: r.width, height: r.height };
      } catch (e) {
        /* no box */
      }
    }
    return p;
  }

  /* ---------- pending type (coalesced input) and scroll (debounced burst) ---------- */

  var typing = null; /* {el, real, value, password, trusted, start, last, url, snap}: the field being typed into */
  var burst = null; /* {startY, start, timer, actionSeen, quiet, after}: the window scroll going on */
  var lastActionT = 0; /* when the last recorded action happened: a scroll input before it caused nothing after it */
  var lastScrollInput = { t: 0, how: '', trusted: false };
  /* Trust of UA-fired events a page script can cause: execCommand('insertText') fires a trusted input
   * event, requestSubmit() a trusted submit, scrollBy() trusted scroll events. Such an event is trusted
   * only when a trusted input of the agent's led to it: */
  var editCause = null; /* {target, t}: a trusted beforeinput (or keydown) into this target just now */
  var trustedAct = false; /* a trusted click or Enter is being handled in this task (for submit) */
  var trustedActTimer = 0;

  function noteTrustedAct() {
    /* a submit the UA fires in the same task as a trusted click/Enter is its consequence */
    trustedAct = true;
    clearTimeout(trustedActTimer);
    trustedActTimer = setTimeout(function () {
      trustedAct = false;
    }, 0);
  }
  var suppress = []; /* [{el, form, until, needDetail0}] simulated clicks to swallow */
  var quietUntil = Date.now() + QUIET_MS; /* script scrolls starting before this are side effects */
  var settleUntil = Date.now() + SETTLE_MS; /* DOM changes before this reopen the quiet time */

  function noteSettling() {
    /* the DOM changed: still the last action's or load's consequence if it came soon enough after it */
    var now = Date.now();
    if (now <= settleUntil && now + QUIET_MS > quietUntil) quietUntil = now + QUIET_MS;
  }
  var lastKnownY = 0; /* scrollY when the last burst ended: a scroll event arrives after the move */
  try {
    lastKnownY = window.scrollY;
  } catch (e) {
    lastKnownY = 0;
  }

  function fieldValue(t) {
    var src = t.real && t.real.isConnected ? t.real : t.el && t.el.isConnected ? t.el : null;
    if (!src) return t.value;
    try {
      if (src.isContentEditable && !('value' in src)) return src.innerText;
      if (typeof src.value === 'string') return src.value;
    } catch (e) {
      /* fall through */
    }
    return t.value;
  }

  function flushType() {
    var t = typing;
    if (!t) return 0;
    typing = null;
    try {
      var p = t.snap;
      if (t.el && t.el.isConnected) {
        p = basePayload('type', t.el, [t.el, t.real], t.trusted, t.last);
        p.text = '';
        p.url = t.url;
      }
      p.value = t.password ? '\u2022\u2022\u2022\u2022' : fieldValue(t);
      p.trusted = t.trusted;
      p.t = t.last;
      emit(p);
      return 1;
    } catch (e) {
      return 0;
    }
  }

  function flushScroll(dropScriptBurst, hold) {
    var b = burst;
    if (!b) return 0;
    burst = null;
    try {
      clearTimeout(b.timer);
    } catch (e) {
      /* ignore */
    }
    var y = 0;
    try {
      y = window.scrollY;
    } catch (e) {
      return 0;
    }
    lastKnownY = y;
    try {
      /* The cause is the agent's last scroll input, when it is recent and came after the last action
       * before the burst began: a burst that starts after an action and before the agent's next input
       * is the page's consequence (a router's scroll restoration), whatever input came before. */
      var inp = lastScrollInput;
      var how = inp.t >= b.start - SCROLL_INPUT_MS && inp.t >= b.after ? inp.how : '';
      /* A burst that no wheel/key/touch/scrollbar input caused is dropped when it is a side effect: cut short
       * by another action (Playwright's scroll-into-view before click/fill), or started right after an action
       * or a load (anchor jumps, scroll restoration, scrollIntoView in a click handler). */
      if (!how && (dropScriptBurst || b.actionSeen || b.quiet)) return 0;
      var delta = y - b.startY;
      if (!delta) return 0;
      /* scroll events are always trusted, even when script scrolled: the cause decides */
      var p = basePayload('scroll', document.documentElement, null, !!how && lastScrollInput.trusted, b.start);
      p.text = '';
      p.value = delta > 0 ? 'down' : 'up';
      p.pixels = Math.round(Math.abs(delta));
      p.source = how || 'script';
      p.hints = {};
      if (!how && hold) {
        holdScriptScroll(p, b.startY);
        return 0;
      }
      emit(p);
      return 1;
    } catch (e) {
      return 0;
    }
  }

  /* A script scroll that settled waits SCRIPT_HOLD_MS (restarted by each later one) before it goes
   * out: Playwright scrolls the element into view before its click, and when the element is not yet
   * stable or hit-testable it waits (up to 500 ms between tries), scrolls it into view again another way and
   * retries, so its scrolls can settle well before the click lands. A trusted click in that time on
   * an element that was out of view when the first held scroll began drops them (releaseHeldScrolls);
   * anything else sends them first. */
  var heldScrolls = null; /* {list: [payload], startY, timer} */

  function holdScriptScroll(p, startY) {
    if (!heldScrolls) heldScrolls = { list: [], startY: startY, timer: 0 };
    clearTimeout(heldScrolls.timer);
    heldScrolls.list.push(p);
    heldScrolls.timer = setTimeout(guard(function () {
      releaseHeldScrolls(null);
    }), SCRIPT_HOLD_MS);
  }

  /* el: the element of a trusted click that is about to be recorded, or null */
  function releaseHeldScrolls(el) {
    var h = heldScrolls;
    if (!h) return 0;
    heldScrolls = null;
    clearTimeout(h.timer);
    if (el && broughtIntoView(el, h.startY)) return 0;
    for (var i = 0; i < h.list.length; i++) emit(h.list[i]);
    return h.list.length;
  }

  /* el was not wholly in the viewport when the page's scroll position was startY */
  function broughtIntoView(el, startY) {
    try {
      var r = el.getBoundingClientRect();
      var top = r.top + window.scrollY;
      return top < startY || top + r.height > startY + window.innerHeight;
    } catch (e) {
      return false;
    }
  }

  /* Everything pending goes out, oldest first, before another recorded action. */
  function flushAll(dropScriptBurst, clicked) {
    var n = releaseHeldScrolls(clicked || null);
    n += flushPageClick(); /* recorder_listeners.js: a click on the page itself, not retried */
    if (burst && typing && typing.last < burst.start) {
      n += flushType();
      n += flushScroll(dropScriptBurst);
    } else {
      n += flushScroll(dropScriptBurst);
      n += flushType();
    }
    return n;
  }

  function noteAction() {
    if (burst) burst.actionSeen = true;
    lastActionT = Date.now();
    quietUntil = lastActionT + QUIET_MS;
    settleUntil = lastActionT + SETTLE_MS;
  }

  function suppressed(acted, ev) {
    var now = Date.now();
    for (var i = suppress.length - 1; i >= 0; i--) {
      var s = suppress[i];
      if (s.until < now) {
        suppress.splice(i, 1);
        continue;
      }
      if (s.needDetail0 && ev.detail !== 0) continue;
      if (acted === s.el || (s.form && acted && acted.form === s.form && isSubmitButton(acted))) {
        suppress.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  function isSubmitButton(el) {
    var tag = el.localName;
    if (tag === 'button') return (el.getAttribute('type') || 'submit').toLowerCase() === 'submit';
    if (tag === 'input') return el.type === 'submit' || el.type === 'image';
    return false;
  }

  function isEditable(el) {
    if (!el || el.nodeType !== 1) return false;
    var tag = el.localName;
    if (tag === 'textarea' || tag === 'select') return true;
    if (tag === 'input') return !NON_TEXT_INPUTS[el.type];
    return !!el.isContentEditable;
  }

  /* (the function goes on in recorder_listeners.js: recorder.parts gives the order of the parts) */
