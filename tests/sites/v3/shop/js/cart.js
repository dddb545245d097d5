/* cart.js — the cart page: lists what localStorage holds, lets the shopper change quantities or
 * remove lines, and links to checkout. */
(function () {
	'use strict';
	var body = document.getElementById('cart-items');

	function cell(row, text, cls) {
		var td = document.createElement('td');
		if (cls)
			td.className = cls;
		if (text !== undefined)
			td.textContent = text;
		row.appendChild(td);
		return td;
	}

	function render() {
		var items = window.CART.items();
		document.getElementById('cart-empty').hidden = items.length > 0;
		document.getElementById('cart-contents').hidden = items.length === 0;
		body.textContent = '';
		items.forEach(function (it, index) {
			var p = window.SHOP.find(it.id);
			if (!p)
				return;
			var tr = document.createElement('tr');
			tr.className = 'rs-cart-item';
			tr.setAttribute('data-product', String(p.id));
			var a = document.createElement('a');
			a.href = '/shop/item.html?id=' + p.id;
			a.textContent = p.name;
			cell(tr).appendChild(a);
			cell(tr, it.size, 'rs-size');
			cell(tr, window.SHOP.capital(it.colour), 'rs-colour');
			var qty = document.createElement('input');
			qty.type = 'number';
			qty.min = '1';
			qty.max = '10';
			qty.value = String(it.qty);
			qty.className = 'rs-qty';
			qty.setAttribute('aria-label', 'Quantity of ' + p.name);
			qty.addEventListener('change', function () {
				window.CART.setQty(index, parseInt(qty.value, 10) || 1);
				render();
			});
			cell(tr).appendChild(qty);
			cell(tr, window.SHOP.money(p.price * it.qty), 'rs-num rs-line-total');
			var rm = document.createElement('button');
			rm.type = 'button';
			rm.className = 'rs-link-button rs-remove-item';
			rm.textContent = 'Remove';
			rm.addEventListener('click', function () {
				window.CART.remove(index);
				render();
			});
			cell(tr).appendChild(rm);
			body.appendChild(tr);
		});
		document.getElementById('cart-subtotal').textContent = window.SHOP.money(window.CART.subtotal());
	}
	render();
})();
