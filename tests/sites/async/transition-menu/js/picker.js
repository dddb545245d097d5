// picker.js — a custom colour menu (a listbox, not a <select>) that opens and closes with a 220 ms CSS
// transition (async.css .menu): while it fades out it still covers "Add to cart" below it and takes the
// clicks (an option clicked while the menu is not open is ignored, as menu libraries do). "Add to cart"
// goes to the cart with the colour chosen.
(function () {
  var button = document.getElementById('colour-button'), menu = document.getElementById('colour-list');
  var chosen = '';
  button.addEventListener('click', function () {
    var open = !menu.classList.contains('open');
    menu.classList.toggle('open', open);
    button.setAttribute('aria-expanded', String(open));
  });
  menu.addEventListener('click', function (e) {
    var li = e.target.closest('li[role=option]');
    if (!li || !menu.classList.contains('open')) return;
    chosen = li.getAttribute('data-value');
    Array.prototype.forEach.call(menu.children, function (o) { o.setAttribute('aria-selected', String(o === li)); });
    button.textContent = 'Colour: ' + li.textContent;
    menu.classList.remove('open');
    button.setAttribute('aria-expanded', 'false');
  });
  document.getElementById('add').addEventListener('click', function () {
    if (!chosen) {
      document.getElementById('colour-error').hidden = false;
      return;
    }
    location.href = '/transition-menu/cart.html?item=basecamp&colour=' + chosen;
  });
})();
