/* Place order: a JSON fetch with the order (qty a number, the card inside it, a bearer token), and
 * a sendBeacon telling analytics about it (a token in its form body). */
document.getElementById('place-order').addEventListener('click', function () {
  var order = {
    item: 'lamp',
    color: document.getElementById('color').value,
    qty: Number(document.getElementById('qty').value),
    gift: false,
    items: [{ sku: 'LMP-1', qty: Number(document.getElementById('qty').value) }],
    card: { number: document.getElementById('cc-number').value, cvc: document.getElementById('cvc').value }
  };
  navigator.sendBeacon('/api/beacon', new URLSearchParams({ event: 'checkout', item: 'lamp', token: 'tok_SECRET_beacon' }));
  fetch('/api/orders', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Authorization': 'Bearer sk_SECRET_bearer' },
    body: JSON.stringify(order)
  }).then(function (r) { return r.text().then(function (t) { return r.status + ' ' + t; }); })
    .then(function (t) { document.getElementById('status').textContent = 'answer: ' + t; },
          function (e) { document.getElementById('status').textContent = 'failed: ' + e; });
});
