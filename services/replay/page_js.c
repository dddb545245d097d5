/* page_js.c — the in-page half of the replayer: one JavaScript library evaluated with one
 * parameter object per call (replay.h kn_replay_page_expr). Functions: wait (the
 * recorded selector, then the fallback locators, then the candidate list for healing, waited for in
 * the page until actionable), pick (candidate i), hit (the element is what the pointer hits, after it came), focus, value, select, describe (an element's fingerprint, for record), alts (the unique stable selectors of an element, repair.c), state (URL, readyState, HTTP status) and excerpt (outerHTML of
 * the closest existing ancestor of a selector). XPath selectors start with "/", "(" or "xpath=";
 * CSS selectors and `host >> inner` chains go through query.js (services/recorder/query_js.h), in
 * front of the library: the light DOM first, then every open shadow root, as Playwright's CSS does —
 * for the step's selector and for the fallbacks and healing candidates alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_js.h"
#include "replay_internal.h"

static const char *const lib[] = {
	"const norm = s => (s || '').replace(/\\s+/g, ' ').trim();\n",
	"const vis = e => { if (!e || !e.isConnected || !e.getClientRects().length) return false;",
	" const s = getComputedStyle(e); return s.visibility !== 'hidden' && s.display !== 'none'; };\n",
	"const isx = s => /^(\\/|\\(|xpath=)/.test(s);\n",
	/* the library's own timers are not the page's work (tracker_js below) */
	"const later = (f, ms) => { const T = globalThis[Symbol.for('keynode.replay.work')]; return T ? T.st(f, ms) : setTimeout(f, ms); };\n",
	"const all = sel => { try { if (isx(sel)) { const x = document.evaluate(sel.replace(/^xpath=/, ''),",
	" document, null, 7, null); const a = []; for (let i = 0; i < x.snapshotLength && i < 200; i++)",
	" a.push(x.snapshotItem(i)); return a.filter(n => n.nodeType === 1); }",
	" return knQueryAll(sel); } catch (e) { return []; } };\n",
	"const first = sel => !sel ? null : isx(sel) ? all(sel).find(vis) || null : knQuery(sel, document, vis);\n",
	"const txt = e => norm(e.innerText || e.value || '').slice(0, 300);\n",
	"const role = e => { const r = e.getAttribute('role'); if (r) return r; const t = e.tagName.toLowerCase();",
	" if (t === 'a' && e.hasAttribute('href')) return 'link'; if (t === 'button') return 'button';",
	" if (t === 'select') return 'combobox'; if (t === 'textarea') return 'textbox';",
	" if (t === 'input') { const y = (e.type || '').toLowerCase();",
	" if (['submit', 'button', 'reset', 'image'].includes(y)) return 'button';",
	" if (y === 'checkbox' || y === 'radio') return y; return 'textbox'; } return ''; };\n",
	"const INTER = 'a,button,input,select,textarea,label,summary,option,[role],[onclick],[tabindex],[contenteditable=true]';\n",
	"const fits = (e, P) => P.verb === 'select' ? e.tagName === 'SELECT' : P.verb === 'type' ?",
	" (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA' || e.isContentEditable) : true;\n",
	"const attr = (a, v) => all('[' + a + '=\"' + CSS.escape(v) + '\"]');\n",
	"function fallback(P) {\n",
	/* an interactive element's text compares without case (a skin's text-transform changes what
	 * innerText says); a bare li/span/div… (a badge styled in capitals) only as written */
	" const pick = l => l.find(e => vis(e) && fits(e, P)) || null; let e; const T = norm(P.text), TL = T.toLowerCase();\n",
	" const tx = c => txt(c).toLowerCase();\n",
	" const S = new Set(P.skip || []);\n",
	" if (P.id && !S.has('id') && (e = pick(attr('id', P.id)))) return [e, 'id'];\n",
	" if (P.name && !S.has('name') && (e = pick(attr('name', P.name)))) return [e, 'name'];\n",
	" if (P.aria && !S.has('aria-label') && (e = pick(attr('aria-label', P.aria)))) return [e, 'aria-label'];\n",
	" const inter = all(INTER);\n",
	" if (P.role && T && !S.has('role+text') && (e = pick(inter.filter(c => role(c) === P.role && tx(c) === TL)))) return [e, 'role+text'];\n",
	" if (P.href && !S.has('href')) { let want = ''; try { want = new URL(P.href, location.href).href; } catch (x) {}\n",
	"  if ((e = pick(all('a[href],area[href]').filter(a =>",
	" a.getAttribute('href') === P.href || a.href === want)))) return [e, 'href']; }\n",
	" if (T && !S.has('text') && (e = pick(inter.filter(c => tx(c) === TL)) ||",
	" pick(all('li,span,div,p,h1,h2,h3,h4,td').filter(c => txt(c) === T).reverse())))",
	" return [e, 'text'];\n",
	" return null; }\n",
	"function uniq(e) {\n",
	" const one = s => all(s).length === 1;\n",
	" if (e.id && !knGeneratedId(e.id) && one('#' + CSS.escape(e.id))) return '#' + CSS.escape(e.id);\n",
	" const t = e.tagName.toLowerCase(), nm = e.getAttribute('name');\n",
	" if (nm && one(t + '[name=\"' + CSS.escape(nm) + '\"]')) return t + '[name=\"' + CSS.escape(nm) + '\"]';\n",
	" const parts = [];\n",
	" for (let n = e; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {\n",
	"  if (n !== e && n.id && !knGeneratedId(n.id) && one('#' + CSS.escape(n.id))) { parts.unshift('#' + CSS.escape(n.id)); break; }\n",
	"  let p = n.tagName.toLowerCase(); const sib = n.parentElement ?",
	" Array.from(n.parentElement.children).filter(k => k.tagName === n.tagName) : [];\n",
	"  if (sib.length > 1) p += ':nth-of-type(' + (sib.indexOf(n) + 1) + ')'; parts.unshift(p); }\n",
	" return parts.join(' > '); }\n",
	/* generated ids and hashed classes (generated.js, in query_js.h) change with every build: no
	 * fingerprint, healing candidate or proposed selector carries them */
	"const sid = e => knGeneratedId(e.id) ? '' : e.id || '';\n",
	"const scls = e => (e.getAttribute('class') || '').trim().split(/\\s+/).filter(c => c && !knGeneratedClass(c));\n",
	"const desc = n => n.tagName.toLowerCase() + (sid(n) ? '#' + sid(n) : '') +",
	" scls(n).slice(0, 4).map(c => '.' + c).join('');\n",
	"function sig(e) { const p = []; for (let n = e.parentElement; n && n !== document.documentElement && p.length < 12;",
	" n = n.parentElement) p.unshift(desc(n));\n",
	" return {tag: e.tagName.toLowerCase(), id: sid(e), name: e.getAttribute('name') || '',",
	" aria: e.getAttribute('aria-label') || '', role: role(e), href: e.getAttribute('href') || '',",
	/* a label hidden until hover (DokuWiki's page tools) is still the element's name: its text */
	" text: txt(e) || norm(e.textContent || '').slice(0, 300), classes: scls(e).join(' '),",
	" path: p.join(' ')}; }\n",
	"const cands = P => all(INTER + ',[id],[name]')",
	".filter(e => vis(e) && fits(e, P)).slice(0, 500);\n",
	/* waiting in the page: the next animation frame (or 50 ms where none is drawn), a DOM
	 * change (or ms), and actionability as Playwright checks it: attached, visible, the same box on
	 * two frames in a row (scrolling, animating: at most P.stable ms) and, for an action, enabled
	 * (at most P.act ms) — past those bounds the step acts as it did before it waited */
	"const tick = () => new Promise(r => { let d = 0; const f = () => { if (!d) { d = 1; r(); } };",
	" requestAnimationFrame(f); later(f, 50); });\n",
	"const changed = ms => new Promise(r => { let d = 0; const o = new MutationObserver(() => f());",
	" const f = () => { if (!d) { d = 1; o.disconnect(); r(); } };",
	" o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});",
	" later(f, Math.max(0, ms)); });\n",
	"const off = (e, P) => P.verb !== 'wait' && !!(e.disabled || (/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(e.tagName)",
	" && e.closest('fieldset[disabled]')) || e.closest('[aria-disabled=\"true\"]'));\n",
	/* a visible loading indicator (a spinner, a progress bar, aria-busy): the page is still at work */
	"const BUSY = '[aria-busy=\"true\"],[role=progressbar],.spinner,.loading,.skeleton,[aria-label^=\"loading\" i]';\n",
	"const busy = () => Array.from(document.querySelectorAll(BUSY)).some(e => e !== document.body && e !== document.documentElement && vis(e));\n",
	"const same = (a, b) => !!a && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;\n",
	/* a click lands on e: the element at its centre is e or inside it (open shadow roots followed),
	 * not an overlay, a toast or a spinner over it (Playwright's hit-target check) */
	"const hits = (e, b) => { const x = b.x + b.width / 2, y = b.y + b.height / 2; let h = document.elementFromPoint(x, y);",
	" while (h && h.shadowRoot && h !== e) { const d = h.shadowRoot.elementFromPoint(x, y); if (!d || d === h) break; h = d; }",
	" for (let n = h; n; n = n.parentNode || n.host) if (n === e) return true; return false; };\n",
	"async function ready(e, how, P) { e.scrollIntoView({block: 'center', inline: 'center'});",
	" const t = performance.now(); let prev = null, b = null;\n",
	" for (;;) { await tick(); if (!e.isConnected) return undefined; b = e.getBoundingClientRect();",
	" const steady = same(prev, b), dt = performance.now() - t;",
	" if ((steady && !off(e, P) && vis(e) && (P.verb !== 'click' || hits(e, b))) || dt > ((steady ? P.act : P.stable) || 0)) break; prev = b; }\n",
	" if (!b.width && !b.height) return null;",
	" return {how, x: b.x + b.width / 2, y: b.y + b.height / 2, sel: uniq(e), sig: sig(e)}; }\n",
	"const located = P => { const e = (P.skip || []).includes('selector') ? null : first(P.sel); if (e) return [e, 'selector'];",
	" return P.fb ? fallback(P) : null; };\n",
	"const K = {\n",
	/* the step's element, waited for up to P.until ms (after a DOM change first when P.changed): the
	 * selector, then with P.fb the fallbacks; with P.collect the healing candidates when neither finds it */
	" async wait(P) { const t0 = performance.now(), left = () => P.until - (performance.now() - t0);",
	" if (P.changed) await changed(left());\n",
	"  for (;;) { const f = located(P);",
	" if (f) { const r = await ready(f[0], f[1], P); if (r !== undefined) return r;",
	" if (left() < -(P.act || 0)) return null; continue; }",
	" if (P.collect) return {candidates: cands(P).map(sig)}; if (left() <= 0) return null;",
	" await (P.fb ? changed(Math.min(100, left())) : tick()); } },\n",
	/* after the pointer came (replay.c wait_hit): the element is what its centre hits, waited for up to P.ms */
	" async hit(P) { const e = first(P.sel), t0 = performance.now(); if (!e) return false;",
	" for (;;) { if (hits(e, e.getBoundingClientRect())) return true; if (performance.now() - t0 > P.ms) return false; await tick(); } },\n",
	" async pick(P) { const e = cands(P)[P.index]; return e ? (await ready(e, 'healed', P)) || null : null; },\n",
	" focus(P) { const e = first(P.sel); if (!e) return null; e.focus(); const had = (e.value || e.textContent || '').length;",
	" if (e.select) e.select(); else if (e.isContentEditable) document.execCommand('selectAll');",
	" return {had: had, focused: document.activeElement === e, before: e.isContentEditable ? e.textContent : e.value,",
	" ro: !!(e.readOnly || e.disabled || e.getAttribute('aria-readonly') === 'true' || e.getAttribute('aria-disabled') === 'true')}; },\n",
	" value(P) { const e = first(P.sel); return e ? {value: e.isContentEditable ? e.textContent : e.value} : null; },\n",
	" select(P) { const el = first(P.sel), v = P.value; if (!el || !el.options) return false; el.focus();",
	" for (const o of el.options) if (o.value === v || o.text.trim() === v) { el.value = o.value;",
	" el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true}));",
	" return true; } return false; },\n",
	" describe(P) { const e = first(P.sel) || all(P.sel)[0]; if (!e) return null;",
	" return Object.assign(sig(e), {testid: e.getAttribute('data-testid') || e.getAttribute('data-test') ||",
	" e.getAttribute('data-qa') || '', vw: innerWidth, vh: innerHeight}); },\n",
	/* repair.c: the stable selectors that find element P.sel alone now, best first, and what it is */
	" alts(P) { const e = first(P.sel); if (!e) return null; const t = e.tagName.toLowerCase(), out = [];",
	" const lit = v => v.includes(\"'\") ? (v.includes('\"') ? null : '\"' + v + '\"') : \"'\" + v + \"'\";",
	" const add = (how, s) => { if (s && all(s).length === 1 && all(s)[0] === e && !out.some(o => o.sel === s)) out.push({how, sel: s}); };",
	" const q = v => '\"' + v.replace(/[\"\\\\]/g, '\\\\$&') + '\"', tid = e.getAttribute('data-testid') || e.getAttribute('data-test') || e.getAttribute('data-qa') || '',",
	" tida = e.hasAttribute('data-testid') ? 'data-testid' : e.hasAttribute('data-test') ? 'data-test' : 'data-qa';",
	" const nm = e.getAttribute('name'), ar = e.getAttribute('aria-label'), ro = e.getAttribute('role'), hr = e.getAttribute('href'), T = txt(e);",
	" if (sid(e)) add('id', '#' + CSS.escape(e.id)); if (nm) add('name', t + '[name=' + q(nm) + ']');",
	" if (tid) add('test-id', '[' + tida + '=' + q(tid) + ']'); if (ar) add('aria-label', t + '[aria-label=' + q(ar) + ']');",
	" if (ro && T && lit(T)) add('role+name', '//' + t + \"[@role='\" + ro + \"'][normalize-space()=\" + lit(T) + ']');",
	" if (hr) add('href', t + '[href=' + q(hr) + ']'); if (T && lit(T)) add('text', '//' + t + '[normalize-space()=' + lit(T) + ']');",
	" add('path', uniq(e)); let hp = hr; try { if (hr && !/^[#/?]/.test(hr)) { const u = new URL(hr, location.href);",
	" if (u.origin === location.origin) hp = u.pathname + u.search + u.hash; } } catch (x) {}",
	" return {alts: out, sig: Object.assign(sig(e), {testid: tid, href: hp || ''})}; },\n",
	/* settling (wait.c): mark starts counting the document's DOM changes before an action; quiet
	 * resolves once none came for P.q ms and no loading indicator is visible (first, when none came
	 * at all yet, up to P.first ms for one), or after P.max ms: {n: changes since the mark}. A
	 * document the mark did not see (a new page) is counted from its load event. */
	" mark(P) { const k = Symbol.for('keynode.replay.dom'), o = globalThis[k]; if (o) o.ob.disconnect();",
	" const s = {n: 0, last: performance.now(), early: !!(P && P.early)}; s.at = s.last;",
	" s.ob = new MutationObserver(l => { s.n += l.length; s.last = performance.now(); });",
	" s.ob.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});",
	" Object.defineProperty(globalThis, k, {value: s, configurable: true}); return s; },\n",
	" quiet(P) { let s = globalThis[Symbol.for('keynode.replay.dom')];",
	" if (!s) { s = K.mark(P); s.fresh = 1; const n = performance.getEntriesByType('navigation')[0];",
	" if (n && n.loadEventEnd) s.last = n.loadEventEnd; }",
	" const t0 = performance.now(), seen = () => s.n || s.fresh;",
	/* nothing changed yet, and the page has nothing of the action's own left to do (tracker_js) */
	" const T = globalThis[Symbol.for('keynode.replay.work')], idle = now => s.early && T && !s.fresh &&",
	" !T.pending(s.at, t0 + P.first) && now - Math.max(t0, T.last) >= P.q && !busy() &&",
	" !document.getAnimations().some(a => a.playState === 'running' && isFinite(a.effect ? a.effect.getComputedTiming().endTime : Infinity));",
	" return new Promise(r => { const f = () => { const now = performance.now();",
	" if (now - t0 >= P.max || (!seen() && !(P.first && now - t0 < P.first && !idle(now))) || (seen() && now - s.last >= P.q && !busy()))",
	" r({n: s.n}); else later(f, 15); }; f(); }); },\n",
	" state(P) { const n = performance.getEntriesByType('navigation')[0] || {};",
	" return {url: location.href, ready: document.readyState, status: n.responseStatus || 0}; },\n",
	/* what the page shows, for softpage.c (shows.js, in front of the library); with P.within, also
	 * whether the page's own scripts have work to come within that many ms (a timer due, a fetch or
	 * XHR not answered: tracker_js) */
	" shows(P) { const T = globalThis[Symbol.for('keynode.replay.work')];",
	" return Object.assign(knShows(), {work: !!(P && P.within) && (!T || T.pending(0, performance.now() + P.within))}); },\n",
	" excerpt(P) { let e = null; const s = P.sel || '';\n",
	"  if (s && isx(s)) { let x = s.replace(/^xpath=/, ''); while (!e && x.length > 1) { e = all(x)[0] || null;",
	" const i = x.lastIndexOf('/'); if (e || i <= 0) break; x = x.slice(0, i).replace(/\\/$/, ''); } }\n",
	"  else if (s) { const parts = s.split(/\\s*[>+~]\\s*|\\s+/).filter(Boolean);",
	" for (let n = parts.length; n > 0 && !e; n--) e = all(parts.slice(0, n).join(' '))[0] || null; }\n",
	"  const h = (e || document.body || document.documentElement).outerHTML;",
	" return {found: !!e, html: h.length > 2048 ? h.slice(0, 2048) + '\\u2026' : h}; }\n",
	"};\n",
};

/* Installed in the replay tab before any page script (wait.c, Page.addScriptToEvaluateOnNewDocument):
 * the work a page's own scripts have pending — each setTimeout and requestIdleCallback (with its due
 * time) until it runs or is cancelled, each fetch and XMLHttpRequest until it ends — and when the last
 * of them ended (T.last). pending(at, until): work started at or after `at` (an action's mark)
 * that is still to come by `until` (a timer due later is beyond the window anyway). quiet() above ends an action's
 * consequence window early on it: an action whose handlers started nothing has no consequence
 * coming. The wrappers call the originals and return what they return. */
const char kn_replay_tracker_js[] =
	"(() => { const k = Symbol.for('keynode.replay.work'); if (globalThis[k]) return;\n"
	"const now = () => performance.now(), W = new Set(), T = {last: 0, st: setTimeout.bind(globalThis),\n"
	" pending: (at, until) => { for (const w of W) if (w.at >= at && w.due <= until) return true; return false; } };\n"
	"Object.defineProperty(globalThis, k, {value: T});\n"
	"const add = due => { const w = {at: now(), due: due}; W.add(w); return w; }, done = w => { if (W.delete(w)) T.last = now(); };\n"
	/* setTimeout and requestIdleCallback: until the callback ran or was cancelled */
	"const timer = (set, clear) => { const s0 = globalThis[set], c0 = globalThis[clear]; if (!s0) return;\n"
	" globalThis[set] = function (f, d, ...a) { if (typeof f !== 'function') return s0.call(this, f, d, ...a);\n"
	"  const w = add(now() + (+d || 0)); w.c = clear; w.id = s0.call(this, function (...x) { done(w); return f.apply(this, x); }, d, ...a); return w.id; };\n"
	" globalThis[clear] = function (id) { for (const w of W) if (w.id === id && w.c === clear) done(w); return c0.call(this, id); }; };\n"
	"timer('setTimeout', 'clearTimeout'); timer('requestIdleCallback', 'cancelIdleCallback');\n"
	/* fetch and XMLHttpRequest: until the answer (or the failure) came */
	"const call = (f, self, a, w) => { try { return f.apply(self, a); } catch (e) { done(w); throw e; } };\n"
	"const fe = globalThis.fetch; if (fe) globalThis.fetch = function (...a) { const w = add(0);\n"
	" const p = call(fe, this, a, w); p.then(() => done(w), () => done(w)); return p; };\n"
	"const XS = XMLHttpRequest.prototype.send; XMLHttpRequest.prototype.send = function (...a) { const w = add(0);\n"
	" this.addEventListener('loadend', () => done(w)); return call(XS, this, a, w); };\n"
	"})();\n";

char *kn_replay_page_expr(const char *fn, json_t *params)
{
	char *p = params ? json_dumps(params, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("{}");
	if (!p)
		return NULL;
	size_t n = strlen(p) + strlen(fn) + kn_query_js_len + 64, w = 0;
	for (size_t i = 0; i < sizeof lib / sizeof lib[0]; i++)
		n += strlen(lib[i]);
	char *e = malloc(n);
	if (e) {
		w = (size_t)snprintf(e, n, "(() => {\n%s", kn_query_js);
		for (size_t i = 0; i < sizeof lib / sizeof lib[0]; i++)
			w += (size_t)snprintf(e + w, n - w, "%s", lib[i]);
		snprintf(e + w, n - w, "return K.%s(%s); })()", fn, p);
	}
	free(p);
	return e;
}
