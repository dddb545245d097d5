// search.js — search as you type: each keystroke restarts a 300 ms debounce; then the catalogue is fetched
// (data/products.json) and the results replace the "Popular right now" list in place. Until then the list
// still shows the popular items, so `.results li:nth-child(1) a` names another product.
(function () {
  var q = document.getElementById('q'), list = document.getElementById('results');
  var title = document.getElementById('results-title'), timer = 0;

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  function search(text) {
    fetch('/debounce-search/data/products.json', { cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(function (all) {
        var words = text.toLowerCase().split(/\s+/).filter(Boolean);
        var hits = all.filter(function (p) {
          return words.every(function (w) { return p.name.toLowerCase().indexOf(w) >= 0; });
        });
        title.textContent = 'Results for “' + text + '”';
        list.innerHTML = hits.length ? hits.map(function (p) {
          return '<li><a href="/debounce-search/item.html?id=' + p.id + '">' + esc(p.name) + '</a></li>';
        }).join('') : '<li class="muted">No products match.</li>';
      });
  }

  q.addEventListener('input', function () {
    clearTimeout(timer);
    var text = q.value.trim();
    if (text) timer = setTimeout(function () { search(text); }, 300);
  });
})();
