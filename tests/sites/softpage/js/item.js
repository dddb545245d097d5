// The item page is a shell: it answers 200 for any id and renders what its data request brings —
// the item, or "Sorry, we couldn't find it" when /api/items/N answers 404 (a soft 404).
(function () {
  const id = new URLSearchParams(location.search).get('id') || '';
  const view = document.getElementById('view');
  const show = html => { view.innerHTML = html; };
  const esc = s => String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'})[c]);
  fetch('api/items/' + encodeURIComponent(id))
    .then(r => r.ok ? r.json() : Promise.reject(r.status))
    .then(item => {
      document.title = item.name + ' — Ridgeline Lists';
      show('<h1 id="item-name">' + esc(item.name) + '</h1><p id="item-weight">' + esc(item.weight) + '</p>' +
           '<p>' + esc(item.notes) + '</p><a id="back" href="index.html">Back to the list</a>');
    })
    .catch(() => {
      show('<h1>Sorry, we couldn\u2019t find it</h1><p>The item may have been removed from the list.</p>' +
           '<a id="back" href="index.html">Back to the list</a>');
    });
})();
