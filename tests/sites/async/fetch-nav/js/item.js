// item.js — "Add to cart" through the shop's API: the click posts (here: fetches data/add.json), then the
// page shows "Added" for 200 ms and only then navigates to the cart. The navigation comes after a fetch
// and a timer, long after the click's own task has ended.
(function () {
  var button = document.getElementById('add-to-cart');
  var message = document.getElementById('message');
  button.addEventListener('click', function () {
    var colour = document.querySelector('input[name=colour]:checked');
    if (!colour) {
      message.textContent = 'Choose a colour first.';
      message.hidden = false;
      return;
    }
    button.disabled = true;
    button.textContent = 'Adding…';
    fetch('/fetch-nav/data/add.json', { cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(function (answer) {
        message.textContent = answer.message;
        message.hidden = false;
        if (!answer.ok) {
          button.textContent = 'Add to cart';
          return;
        }
        setTimeout(function () {
          location.href = '/fetch-nav/cart.html?item=' + answer.item + '&colour=' + colour.value;
        }, 200);
      });
  });
})();
