/* footer.js — fills "Our stores" in the footer from /shop/data/stores.json. */
(function () {
	'use strict';
	var list = document.getElementById('store-list');
	if (!list || !window.fetch)
		return;
	fetch('/shop/data/stores.json').then(function (r) {
		if (!r.ok)
			throw new Error('HTTP ' + r.status);
		return r.json();
	}).then(function (data) {
		list.textContent = '';
		data.stores.forEach(function (s) {
			var li = document.createElement('li');
			li.textContent = s.city + ' — ' + s.address + ' (' + s.hours + ')';
			list.appendChild(li);
		});
	}).catch(function () {
		list.textContent = '';
		var li = document.createElement('li');
		li.textContent = 'Store list unavailable';
		list.appendChild(li);
	});
})();
