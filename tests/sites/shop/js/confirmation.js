/* confirmation.js — shows the order just placed (/shop/confirmation.html?order=KN-NNNN). */
(function () {
	'use strict';
	var number = new URLSearchParams(location.search).get('order');
	var order = null;
	try {
		order = JSON.parse(localStorage.getItem('trailhead-last-order') || 'null');
	} catch (e) {
		order = null;
	}
	if (!order || order.number !== number) {
		document.getElementById('confirmation').hidden = true;
		document.getElementById('order-missing').hidden = false;
		return;
	}
	document.getElementById('confirm-title').textContent = 'Thank you, ' + order.name.split(' ')[0] + '!';
	document.getElementById('order-number').textContent = order.number;
	var list = document.getElementById('confirm-items');
	order.items.forEach(function (text) {
		var li = document.createElement('li');
		li.textContent = text;
		list.appendChild(li);
	});
	var names = { standard: 'Standard (3–5 days)', express: 'Express (next day)', pickup: 'Collect in store' };
	document.getElementById('confirm-shipping').textContent = (names[order.shipping] || order.shipping) +
		(order.shippingCost ? ' \u2014 ' + window.SHOP.money(order.shippingCost) : ' \u2014 free');
	document.getElementById('confirm-total').textContent = window.SHOP.money(order.total);
	document.getElementById('confirm-email').textContent = order.email;
	document.title = 'Order ' + order.number + ' — Trailhead Outfitters';
})();
