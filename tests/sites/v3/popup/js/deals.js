/* deals.js — "Reveal code" buttons replace themselves with the discount code. */
(function () {
	'use strict';
	Array.prototype.forEach.call(document.querySelectorAll('.rs-deal button[data-code]'), function (b) {
		b.addEventListener('click', function () {
			var code = b.nextElementSibling;
			code.textContent = b.getAttribute('data-code');
			code.hidden = false;
			b.textContent = 'Code revealed';
			b.disabled = true;
		});
	});
})();
