/* product.js — renders product.html?id=N: title, price, attributes, bullet points and description
 * (when the product has them), colour radios (#color-<name>, the first checked), the size <select>
 * (the first selected); #buy places the
 * order on the page itself (#bought shows, the choices freeze), so the page still shows what was
 * bought. */
(function () {
  var id = Number(new URLSearchParams(location.search).get('id'));
  var p = MARKET.filter(function (x) { return x.id === id; })[0];
  if (!p) {
    document.getElementById('title').textContent = 'No such product';
    return;
  }
  document.title = p.title + ' — Ridgeline Market';
  document.getElementById('title').textContent = p.title;
  document.getElementById('price').textContent = p.price;
  var ul = document.getElementById('attributes');
  p.attributes.forEach(function (a) {
    var li = document.createElement('li');
    li.textContent = a;
    ul.appendChild(li);
  });
  var bl = document.getElementById('bullets');
  (p.bullets || []).forEach(function (b) {
    var li = document.createElement('li');
    li.textContent = b;
    bl.appendChild(li);
  });
  document.getElementById('description').textContent = p.description || '';
  var fs = document.getElementById('colors');
  p.colors.forEach(function (c, i) {
    var label = document.createElement('label');
    var r = document.createElement('input');
    r.type = 'radio';
    r.name = 'color';
    r.value = c;
    r.id = 'color-' + c;
    r.checked = i === 0;
    label.appendChild(r);
    label.appendChild(document.createTextNode(' ' + c));
    fs.appendChild(label);
  });
  var sel = document.getElementById('size');
  p.sizes.forEach(function (s) {
    var o = document.createElement('option');
    o.value = s;
    o.textContent = s;
    sel.appendChild(o);
  });
  document.getElementById('buy').addEventListener('click', function () {
    document.getElementById('bought').hidden = false;
    document.getElementById('buy').disabled = true;
    Array.prototype.forEach.call(document.querySelectorAll('#options input, #options select'),
      function (e) { e.disabled = true; });
  });
})();
