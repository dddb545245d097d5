// feed.js — an infinite list: when the sentinel under the list scrolls into view, a spinner shows and the
// next page is fetched (data/page-N.json); the feed API takes 0.7 s to answer (simulated by a timer after
// the fetch), then the ten reports are appended and the sentinel moves below them. Scrolling again while a
// page loads does nothing: the page cannot grow until it arrives.
(function () {
  var feed = document.getElementById('feed'), sentinel = document.getElementById('sentinel');
  var loading = false;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  function load() {
    var next = sentinel.getAttribute('data-next');
    if (loading || !next) return;
    loading = true;
    sentinel.innerHTML = '<div class="spinner" aria-label="Loading"></div>';
    fetch('/lazy-list/data/page-' + next + '.json', { cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : { items: [], next: null }; })
      .then(function (page) {
        setTimeout(function () {
          feed.insertAdjacentHTML('beforeend', page.items.map(function (x) {
            return '<li><a id="item-' + x.id + '" href="/lazy-list/report.html?id=' + x.id + '">' + esc(x.name) +
              '</a> <span class="muted">' + esc(x.note) + '</span></li>';
          }).join(''));
          sentinel.innerHTML = page.next ? '' : '<p class="muted">No more reports.</p>';
          if (page.next) sentinel.setAttribute('data-next', page.next);
          else sentinel.removeAttribute('data-next');
          loading = false;
        }, 700);
      });
  }

  new IntersectionObserver(function (entries) {
    if (entries[0].isIntersecting) load();
  }).observe(sentinel);
})();
