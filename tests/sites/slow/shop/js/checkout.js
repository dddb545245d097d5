// checkout.js — "Place order" leads to the confirmation page.
document.getElementById('place-order').addEventListener('click', function () {
  location.href = '/shop/done.html?order=trail-lantern';
});
