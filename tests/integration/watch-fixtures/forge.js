/* forge.js — a hostile page (main world). After load it tries to get steps into keynode's trajectory:
 *  1. calls every global that could be keynode's binding or flush function (guessed names, and every
 *     non-standard global) with a forged payload ("FORGED-PAYLOAD"), logs it to the console, posts it;
 *  2. dispatches synthetic events (click(), dispatchEvent of click/input/keydown/change/wheel), and causes
 *     events the UA fires as *trusted* (execCommand typing, requestSubmit, scrollBy, a label's click);
 *  3. navigates by itself: pushState, a hash change, and (round 1) location.assign to ?round=2, where it
 *     calls the globals again, clicks #bait by script and navigates within the document again. Then
 *     #status gets class "done" and the names it found go into #found.
 * After the agent's real click on #real it clicks #bait by script once more. */
(function () {
  'use strict';
  var round = new URLSearchParams(location.search).get('round') || '1';
  var found = [];
  var FORGED = JSON.stringify({ type: 'click', selector: '#real', text: 'FORGED-PAYLOAD', value: null, key: null,
    url: location.href, trusted: true, matched: ['real'], frame: false, t: Date.now(), hints: { tag: 'button', id: 'real' } });

  try { /* an own unforgeable property of each event: this changes nothing, which is the point */
    Object.defineProperty(Event.prototype, 'isTrusted', { get: function () { return true; } });
  } catch (e) { /* expected */ }

  function callEverything() {
    var guesses = ['kn', 'keynode', 'send', 'binding', 'record', 'recorder', '__kn', '__kn_send', '__kn_binding',
      '__kn_flush', '__keynode', 'kn_send', 'kn_record', 'knRecord', 'cdp', 'bindingCalled', '__kn_recorder_installed'];
    var fresh = document.createElement('iframe');
    document.body.appendChild(fresh);
    var std = {};
    Object.getOwnPropertyNames(fresh.contentWindow).forEach(function (n) { std[n] = 1; });
    fresh.remove();
    Object.getOwnPropertyNames(window).forEach(function (n) {
      if (!std[n]) guesses.push(n);
    });
    guesses.forEach(function (n) {
      var f;
      try { f = window[n]; } catch (e) { return; }
      if (typeof f === 'undefined') return;
      found.push(n);
      [f, f && f.send].forEach(function (g) {
        if (typeof g !== 'function') return;
        try { g(FORGED); } catch (e) { /* keep going */ }
        try { g.call(window, 'click', FORGED); } catch (e) { /* keep going */ }
      });
    });
    console.log(FORGED);
    console.debug(FORGED);
    try { window.postMessage(FORGED, '*'); } catch (e) { /* ignore */ }
  }

  function synthetic() {
    var bait = document.getElementById('bait');
    bait.click();
    bait.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, detail: 1, button: 0 }));
    var name = document.getElementById('name');
    name.focus();
    document.execCommand('insertText', false, 'typed by the page'); /* the UA fires a trusted input event */
    var note = document.getElementById('note'); /* a field of its own: only synthetic events */
    note.value = 'synthetic';
    note.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: 'c' }));
    note.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true }));
    var pick = document.getElementById('pick');
    pick.value = 'b';
    pick.dispatchEvent(new Event('change', { bubbles: true }));
    document.getElementById('agree-label').click(); /* and the label clicks its checkbox */
    document.getElementById('bait-form').requestSubmit(); /* the UA fires a trusted submit */
    document.dispatchEvent(new WheelEvent('wheel', { bubbles: true, deltaY: 300 }));
    window.scrollBy(0, 300); /* the UA fires trusted scroll events */
    note.blur();
  }

  function navigations() {
    history.pushState(null, '', location.pathname + '?round=' + round + '&pushed=1');
    location.hash = 'forged';
  }

  document.addEventListener('submit', function (e) { e.preventDefault(); });
  document.addEventListener('DOMContentLoaded', function () {
    document.getElementById('real').addEventListener('click', function () {
      setTimeout(function () { document.getElementById('bait').click(); }, 50);
    });
    setTimeout(function () {
      callEverything();
      if (round === '1')
        synthetic();
      else
        document.getElementById('bait').click(); /* the recorder is in the new document too */
      navigations();
      if (round === '1') {
        setTimeout(function () { location.assign('forge.html?round=2'); }, 300);
        return;
      }
      window.scrollTo(0, 0);
      document.getElementById('found').textContent = JSON.stringify(found);
      var status = document.getElementById('status');
      status.textContent = 'round 2 done';
      status.className = 'done';
    }, 300);
  });
})();
