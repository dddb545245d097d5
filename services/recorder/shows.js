/*
 * shows.js - what a page shows, for the judgement "does the page show an error" (services/replay/
 * softpage.h): its title, its visible main headings and alerts, the start of its visible text and that
 * text's length. One implementation for both sides of that judgement: the replayer's page library asks it
 * after a replayed step (K.shows), and `keynode record` has the recorder put it in each action's payload,
 * taken as the action comes and before its default action, as the baseline of the step before (what
 * that step's page showed however soon the agent went on).
 *
 * Like query.js, only a function declaration, without state: in the recorder's IIFE (recorder.parts)
 * and in front of the C services' scripts (page.parts).
 */
function knShows() {
  /* no NUL: a C parser takes none either */
  var norm = function (s) {
    return (s || '').replace(/\u0000/g, '').replace(/\s+/g, ' ').trim();
  };
  var vis = function (e) {
    if (!e || !e.isConnected || !e.getClientRects().length) return false;
    var s = getComputedStyle(e);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  /* the first 600 UTF-16 units, without half of a pair at the cut (nor a lone surrogate) */
  var start = function (s) {
    s = s.slice(0, 600);
    return typeof s.toWellFormed === 'function' ? s.toWellFormed() : s;
  };
  var pick = function (sel) {
    return start(Array.prototype.filter.call(document.querySelectorAll(sel), vis)
      .map(function (e) { return norm(e.innerText); })
      .filter(Boolean).join(' | '));
  };
  var b = document.body ? norm(document.body.innerText) : '';
  return {
    title: start(norm(document.title)),
    headings: pick('h1,h2,[role=heading][aria-level="1"],[role=heading][aria-level="2"]'),
    alerts: pick('[role=alert],[aria-live=assertive]'),
    text: start(b),
    len: b.length
  };
}
