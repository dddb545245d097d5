/* checkout.js — the checkout form: order summary with the delivery cost, and on "Place order"
 * the order is stored, the cart emptied and the browser sent to the confirmation page
 * (/shop/confirmation.html?order=KN-NNNN). The order number is derived from the order itself, so
 * the same order always gets the same number. */
(function () {
	'use strict';
	var SHIPPING = { standard: 500, express: 1500, pickup: 0 };
	var FREE_STANDARD_FROM = 10000;

	var items = window.CART.items();
	if (!items.length) {
		document.getElementById('checkout').hidden = true;
		document.getElementById('checkout-empty').hidden = false;
		return;
	}
	var shipping = document.getElementById('shipping');
	var subtotal = window.CART.subtotal();

	function shippingCost() {
		if (shipping.value === 'standard' && subtotal >= FREE_STANDARD_FROM)
			return 0;
		return SHIPPING[shipping.value] || 0;
	}
	function describe(it) {
		var p = window.SHOP.find(it.id);
		return p.name + ' (' + it.size + ', ' + it.colour + ') \u00d7 ' + it.qty;
	}

	var list = document.getElementById('summary-items');
	items.forEach(function (it) {
		var p = window.SHOP.find(it.id);
		var li = document.createElement('li');
		var name = document.createElement('span');
		name.textContent = describe(it);
		var price = document.createElement('span');
		price.textContent = window.SHOP.money(p.price * it.qty);
		li.appendChild(name);
		li.appendChild(price);
		list.appendChild(li);
	});
	function totals() {
		document.getElementById('summary-subtotal').textContent = window.SHOP.money(subtotal);
		document.getElementById('summary-shipping').textContent =
			shippingCost() ? window.SHOP.money(shippingCost()) : 'Free';
		document.getElementById('order-total').textContent = window.SHOP.money(subtotal + shippingCost());
	}
	shipping.addEventListener('change', totals);
	totals();

	function orderNumber(text) {
		var h = 0;
		for (var i = 0; i < text.length; i++)
			h = (h * 31 + text.charCodeAt(i)) % 9000;
		return 'KN-' + (1000 + h);
	}

	document.getElementById('checkout-form').addEventListener('submit', function (e) {
		e.preventDefault();
		function val(id) {
			return document.getElementById(id).value.trim();
		}
		var order = {
			name: val('name'),
			email: val('email'),
			address: val('address'),
			city: val('city'),
			zip: val('zip'),
			country: val('country'),
			shipping: shipping.value,
			payment: document.querySelector('input[name=payment]:checked').value,
			items: items.map(describe),
			subtotal: subtotal,
			shippingCost: shippingCost(),
			total: subtotal + shippingCost()
		};
		order.number = orderNumber(JSON.stringify([order.name, order.zip, order.shipping, order.items]));
		localStorage.setItem('trailhead-last-order', JSON.stringify(order));
		window.CART.clear();
		location.assign('/shop/confirmation.html?order=' + encodeURIComponent(order.number));
	});
})();
