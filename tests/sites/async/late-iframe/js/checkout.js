// checkout.js — the payment provider's card form arrives late: the page fetches the provider's session
// (data/payment.json), and 300 ms later mounts its iframe (#card-frame, card.html) in #payment.
(function () {
  fetch('/late-iframe/data/payment.json', { cache: 'no-store' })
    .then(function (r) { return r.json(); })
    .then(function (p) {
      setTimeout(function () {
        var box = document.getElementById('payment');
        if (p.mode === 'iframe') {
          box.innerHTML = '<iframe id="card-frame" title="Card payment" src="' + p.src + '"></iframe>';
        } else {
          box.innerHTML = '<p><a class="btn" id="provider" href="' + p.src + '">Continue to the payment provider</a></p>';
        }
      }, 300);
    });
})();
