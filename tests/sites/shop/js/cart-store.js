/* cart-store.js — the cart in localStorage, shared by every shop page, and the header badge. */
(function () {
	'use strict';
	var KEY = 'trailhead-cart';

	function load() {
		try {
			var items = JSON.parse(localStorage.getItem(KEY) || '[]');
			return Array.isArray(items) ? items : [];
		} catch (e) {
			return [];
		}
	}
	function save(items) {
		localStorage.setItem(KEY, JSON.stringify(items));
		updateBadge();
	}
	function count() {
		return load().reduce(function (n, it) { return n + it.qty; }, 0);
	}
	function updateBadge() {
		var badge = document.getElementById('cart-count');
		if (badge) {
			var n = count();
			badge.textContent = String(n);
			badge.hidden = n === 0;
		}
	}

	window.CART = {
		items: load,
		count: count,
		/* Add qty of one product in one size and colour; the same line again adds up. */
		add: function (id, size, colour, qty) {
			var items = load();
			for (var i = 0; i < items.length; i++) {
				var it = items[i];
				if (it.id === id && it.size === size && it.colour === colour) {
					it.qty += qty;
					save(items);
					return;
				}
			}
			items.push({ id: id, size: size, colour: colour, qty: qty });
			save(items);
		},
		remove: function (index) {
			var items = load();
			items.splice(index, 1);
			save(items);
		},
		setQty: function (index, qty) {
			var items = load();
			if (items[index]) {
				items[index].qty = Math.max(1, qty);
				save(items);
			}
		},
		clear: function () {
			save([]);
		},
		subtotal: function () {
			return load().reduce(function (sum, it) {
				var p = window.SHOP.find(it.id);
				return sum + (p ? p.price * it.qty : 0);
			}, 0);
		}
	};

	document.addEventListener('DOMContentLoaded', updateBadge);
	/* another tab changed the cart */
	window.addEventListener('storage', function (e) {
		if (e.key === KEY)
			updateBadge();
	});
})();
