// book.js — "Continue" is enabled 150 ms after a time is chosen (the availability check), the way design
// systems do it: aria-disabled="true" and a click handler that ignores clicks while it is set (no native
// `disabled`). Continue then opens the details page for the chosen slot.
(function () {
  var next = document.getElementById('continue'), status = document.getElementById('availability');
  var slot = '';
  document.querySelectorAll('.slot').forEach(function (b) {
    b.addEventListener('click', function () {
      document.querySelectorAll('.slot').forEach(function (o) { o.setAttribute('aria-pressed', String(o === b)); });
      slot = b.getAttribute('data-slot');
      next.setAttribute('aria-disabled', 'true');
      status.textContent = 'Checking availability…';
      setTimeout(function () {
        status.textContent = b.textContent + ': 6 places left.';
        next.removeAttribute('aria-disabled');
      }, 150);
    });
  });
  next.addEventListener('click', function () {
    if (next.getAttribute('aria-disabled') === 'true') return;
    location.href = '/late-enabled/details.html?walk=hidden-falls&slot=' + slot;
  });
})();
