// app.js — a single-page "Your orders" app: every view is loaded with XMLHttpRequest and, once the data
// is there (and a 120 ms view transition later), the URL changes with history.pushState. A link's click
// navigates nowhere by itself; the route change comes after the request. Reloads and Back/Forward render
// from the URL (?view=order&id=N, ?view=track&id=N).
(function () {
  var app = document.getElementById('app');

  function get(url, done) {
    var x = new XMLHttpRequest();
    x.open('GET', url);
    x.responseType = 'json';
    x.onload = function () { done(x.status === 200 ? x.response : null); };
    x.onerror = function () { done(null); };
    x.send();
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  var views = {
    list: function (data) {
      return '<h1>Your orders</h1><ul class="plain">' + data.orders.map(function (o) {
        return '<li><a id="order-' + o.id + '" href="/spa-xhr/?view=order&id=' + o.id + '" data-route>Order ' + o.id +
          '</a> <span class="muted">' + esc(o.summary) + '</span></li>';
      }).join('') + '</ul>';
    },
    order: function (o) {
      return '<h1>Order ' + o.id + '</h1><p>' + esc(o.summary) + '</p><p class="muted">Placed ' + esc(o.placed) + '</p>' +
        (o.trackable ? '<p><button type="button" class="btn" id="track" data-href="/spa-xhr/?view=track&id=' + o.id +
          '">Track parcel</button></p>' : '<p class="notice">' + esc(o.tracking_note) + '</p>');
    },
    track: function (t) {
      return '<h1>Parcel for order ' + t.id + '</h1><p id="status">' + esc(t.status) + '</p>';
    }
  };

  function source(q) {
    var view = q.get('view') || 'list', id = q.get('id');
    if (view === 'order') return { view: view, url: '/spa-xhr/data/order-' + id + '.json' };
    if (view === 'track') return { view: view, url: '/spa-xhr/data/track-' + id + '.json' };
    return { view: 'list', url: '/spa-xhr/data/orders.json' };
  }

  // go(href, push) — load the view's data, then (after the transition) change the URL and render
  function go(href, push) {
    var u = new URL(href, location.href), s = source(u.searchParams);
    app.setAttribute('aria-busy', 'true');
    get(s.url, function (data) {
      setTimeout(function () {
        if (push) history.pushState(null, '', u.pathname + u.search);
        app.innerHTML = data ? views[s.view](data) : '<p class="notice">Not found.</p>';
        app.removeAttribute('aria-busy');
      }, push ? 120 : 0);
    });
  }

  document.addEventListener('click', function (e) {
    var a = e.target.closest('[data-route], #track');
    if (!a) return;
    e.preventDefault();
    go(a.getAttribute('href') || a.getAttribute('data-href'), true);
  });
  window.addEventListener('popstate', function () { go(location.href, false); });
  go(location.href, false);
})();
