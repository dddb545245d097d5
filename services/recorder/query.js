/*
 * query.js - selectors as people write them, resolved in the page the way Playwright's CSS engine
 * resolves them (services/recorder/README.md "Selectors"): the one in-page implementation of
 * "deep querySelector" that the recorder, the replayer's page library, the monitor's page checks and
 * the trace's probe all use.
 *
 * A selector is one CSS selector or a chain of them joined with " >> " (`host >> inner`; knChainSep). One CSS
 * selector is looked for in a tree (the document, or a shadow root): its own elements first, in
 * document order, then in each open shadow root in that tree, in the document order of the hosts,
 * each searched the same way (nested roots too); the matches of a selector list (`a, b`, or an
 * `:is()` / `:where()` of several) are sorted in tree order, an element before its light subtree
 * before its shadow root, as Playwright sorts them.
 * A combinator stays within one tree (Playwright's cross into shadow roots). Each part of a
 * chain after the first is looked for, the same way, in the open shadow root of the first element the
 * part before it named. An invalid selector or part finds nothing; nothing here throws.
 *
 * The file is only function declarations, without state: the recorder has it among its parts (inside
 * its IIFE, recorder.parts); the C services put it in front of their own scripts (kn_query_js,
 * query_js.h). XPath is the callers' business.
 */

/* Every element in tree (a document, shadow root or element) matching css, in the order above, into
 * out; or, with pred and no out, the first such element pred accepts (null: none). Throws on an
 * invalid css (the public functions catch). depth bounds nested shadow roots. */
function knDeep(tree, css, pred, out, depth) {
  if (!out && !pred) {
    var first = tree.querySelector(css); /* stops at the first match: no walk over a big tree */
    if (first) return first;
  } else {
    var own = tree.querySelectorAll(css);
    for (var i = 0; i < own.length; i++) {
      if (out) out.push(own[i]);
      else if (pred(own[i])) return own[i];
    }
  }
  if (depth > 32) return null;
  var all = tree.querySelectorAll('*');
  for (var j = 0; j < all.length; j++) {
    var root = all[j].shadowRoot; /* null for a closed root: it stays closed */
    if (!root) continue;
    var hit = knDeep(root, css, pred, out, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/* Are css's matches sorted in tree order by Playwright: a selector list (a comma at the top level) or
 * an :is() / :where() of several selectors (a comma right inside one), outside strings and brackets? */
function knIsList(css) {
  var stack = []; /* per open '(' or '[': sorting when a comma is right inside it */
  for (var i = 0; i < css.length; i++) {
    var c = css.charAt(i);
    if (c === '\\') i++;
    else if (c === '"' || c === "'") {
      var end = css.indexOf(c, i + 1);
      while (end > 0 && css.charAt(end - 1) === '\\') end = css.indexOf(c, end + 1);
      if (end < 0) return false;
      i = end;
    } else if (c === '[') stack.push(false);
    else if (c === '(') stack.push(/:(is|where)$/i.test(css.slice(0, i)));
    else if ((c === ')' || c === ']') && stack.length) stack.pop();
    else if (c === ',' && (!stack.length || stack[stack.length - 1])) return true;
  }
  return false;
}

/* found, in the tree order Playwright sorts a selector list's matches in: an element, then its light
 * subtree, then its open shadow root's. */
function knTreeOrder(tree, found) {
  var want = new Set(found), out = [];
  (function visit(parent, depth) {
    for (var c = parent.firstElementChild; c; c = c.nextElementSibling) {
      if (want.has(c)) out.push(c);
      visit(c, depth);
      if (c.shadowRoot && depth < 32) visit(c.shadowRoot, depth + 1);
    }
  })(tree, 0);
  return out;
}

/* The offset in s of the next `>>` chain separator at or after from: outside CSS strings, brackets
 * and parentheses and not escaped, with blanks around it or not; -1 when there is none (an unclosed
 * string: none). The one reading of a chain: keynode's selector grammar has the same rules
 * (kn_selector_chain_sep), so the parts `keynode validate` checks and the replayer's frames enter are
 * the parts looked for here ("[title='a >> b']" is one part, "a>>b" two). */
function knChainSep(s, from) {
  var nest = 0;
  for (var i = from; i < s.length; i++) {
    var c = s.charAt(i);
    if (c === '\\') {
      i++;
    } else if (c === '"' || c === "'") {
      var j = i + 1;
      while (j < s.length && s.charAt(j) !== c) j += s.charAt(j) === '\\' ? 2 : 1;
      if (j >= s.length) return -1;
      i = j;
    } else if (c === '[' || c === '(') {
      nest++;
    } else if ((c === ']' || c === ')') && nest) {
      nest--;
    } else if (!nest && c === '>' && s.charAt(i + 1) === '>') {
      return i;
    }
  }
  return -1;
}

/* The parts of a selector, trimmed: [css] or the chain's parts; null when a part is empty. */
function knParts(sel) {
  var s = String(sel == null ? '' : sel), parts = [], p = 0;
  for (var at = knChainSep(s, 0); at >= 0; at = knChainSep(s, p)) {
    parts.push(s.slice(p, at));
    p = at + 2;
  }
  parts.push(s.slice(p));
  for (var i = 0; i < parts.length; i++) if (!(parts[i] = parts[i].trim())) return null;
  return parts;
}

/* The tree the last part of a chain is looked for in: doc, or the open shadow root the earlier parts
 * lead to (null: a part found nothing, or its element has no open shadow root). */
function knScope(parts, doc) {
  var tree = doc || document;
  for (var i = 0; i < parts.length - 1; i++) {
    var host = knDeep(tree, parts[i], null, null, 0);
    if (!host || !host.shadowRoot) return null;
    tree = host.shadowRoot;
  }
  return tree;
}

/* The first element sel names in doc (default: document) that pred accepts (any, without pred), or
 * null. Light DOM first: the shadow roots are only searched when the document has no such element. */
function knQuery(sel, doc, pred) {
  try {
    var parts = knParts(sel);
    var tree = parts && knScope(parts, doc);
    if (!tree) return null;
    var css = parts[parts.length - 1];
    if (!knIsList(css)) return knDeep(tree, css, pred || null, null, 0);
    var all = knQueryAll(sel, doc);
    for (var i = 0; i < all.length; i++) if (!pred || pred(all[i])) return all[i];
    return null;
  } catch (e) {
    return null;
  }
}

/* Every element sel names in doc (default: document), in the order above; [] for none or an invalid
 * selector. */
function knQueryAll(sel, doc) {
  var out = [];
  try {
    var parts = knParts(sel);
    var tree = parts && knScope(parts, doc);
    if (!tree) return out;
    knDeep(tree, parts[parts.length - 1], null, out, 0);
    if (knIsList(parts[parts.length - 1])) out = knTreeOrder(tree, out);
  } catch (e) {
    return [];
  }
  return out;
}

/* Why sel is not a valid selector (the browser's message), or '' when it is. */
function knSelectorError(sel) {
  var parts = knParts(sel);
  if (!parts) return 'empty selector or chain part';
  try {
    var f = document.createDocumentFragment();
    for (var i = 0; i < parts.length; i++) f.querySelector(parts[i]);
  } catch (e) {
    return String((e && e.message) || e);
  }
  return '';
}
