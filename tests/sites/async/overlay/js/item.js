// item.js — "Add to basket" calls the basket API (data/basket.json) and shows a toast in the top right
// corner, right over the header's Basket link, for one second (then it fades out in 200 ms and is removed).
// A click on the link while the toast is there lands on the toast.
(function () {
  document.getElementById('add').addEventListener('click', function () {
    fetch('/overlay/data/basket.json', { cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(function (b) {
        var toast = document.createElement('div');
        toast.className = 'toast';
        toast.setAttribute('role', 'status');
        toast.textContent = b.message;
        document.body.appendChild(toast);
        setTimeout(function () {
          toast.classList.add('leaving');
          setTimeout(function () { toast.remove(); }, 200);
        }, 1000);
      });
  });
})();
