/* index.js — lists the catalogue with links to product.html?id=N. */
(function () {
  var ul = document.getElementById('products');
  MARKET.forEach(function (p) {
    var li = document.createElement('li');
    var a = document.createElement('a');
    a.href = 'product.html?id=' + p.id;
    a.id = 'product-' + p.id;
    a.textContent = p.title + ' — ' + p.price;
    li.appendChild(a);
    ul.appendChild(li);
  });
})();
