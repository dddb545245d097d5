// checkout.js — "Place order" shows 2.5 s after the page (the payment script's start-up) and leads to the
// confirmation page.
var place = document.getElementById('place-order');
place.addEventListener('click', function () {
  location.href = '/shop/done.html?order=trail-lantern';
});
setTimeout(function () { place.hidden = false; }, 2500);
