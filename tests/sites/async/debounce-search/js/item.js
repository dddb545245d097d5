// item.js — the product page names the product of ?id=N.
(function () {
  var id = Number(new URLSearchParams(location.search).get('id'));
  fetch('/debounce-search/data/products.json').then(function (r) { return r.json(); }).then(function (all) {
    var p = all.filter(function (x) { return x.id === id; })[0];
    document.getElementById('name').textContent = p ? p.name : 'No such product';
  });
})();
