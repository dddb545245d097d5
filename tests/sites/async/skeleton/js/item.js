// item.js — a product page behind a loading skeleton: the server-rendered page shows grey blocks and a
// disabled placeholder size picker and button; the product is fetched (data/product-N.json) and, after the
// 400 ms the real API takes, the whole #product block is rendered again: new <select id="size"> and
// <button id="add"> nodes replace the placeholders.
(function () {
  var id = new URLSearchParams(location.search).get('id') || '2';
  var box = document.getElementById('product');

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  fetch('/skeleton/data/product-' + encodeURIComponent(id) + '.json', { cache: 'no-store' })
    .then(function (r) { return r.json(); })
    .then(function (p) {
      setTimeout(function () {
        box.innerHTML = '<h1>' + esc(p.name) + '</h1><p class="price">' + esc(p.price) + '</p><p>' + esc(p.description) + '</p>' +
          (p.available
            ? '<label for="size">Size</label><select id="size" name="size"><option value="">Choose a size</option>' +
              p.sizes.map(function (s) { return '<option value="' + s + '">EU ' + s + '</option>'; }).join('') +
              '</select><p><button type="button" id="add" class="btn">Add to basket</button></p>'
            : '<p class="notice">This product is no longer available.</p>');
        box.removeAttribute('aria-busy');
        var add = document.getElementById('add');
        if (add) add.addEventListener('click', function () {
          var size = document.getElementById('size').value;
          if (size) location.href = '/skeleton/basket.html?id=' + p.id + '&size=' + size;
        });
      }, 400);
    });
})();
