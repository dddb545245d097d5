// item.js — "Add to cart" as many shops write it: the click handler shows a busy state and navigates
// to the cart 50 ms later (setTimeout → location.href), so nothing navigates during the click itself.
(function () {
  var button = document.getElementById('add-to-cart');
  var size = document.getElementById('size');
  button.addEventListener('click', function () {
    if (!size.value) {
      document.getElementById('size-error').hidden = false;
      return;
    }
    button.textContent = 'Adding…';
    setTimeout(function () {
      location.href = '/timer-nav/cart.html?item=ridge-shell&size=' + encodeURIComponent(size.value);
    }, 50);
  });
})();
