/* item.js — a product page (/shop/item.html?id=N): fills in the product, its sizes and colours,
 * and adds the chosen option to the cart. The add button holds an icon and a <span>, so a click
 * usually lands on one of those, not on the button itself. */
(function () {
	'use strict';
	var SWATCH = { red: '#c8312b', white: '#f7f7f7', black: '#222', brown: '#7a5230', grey: '#8a8f8c',
		blue: '#3b6fb5', navy: '#1f2f55', green: '#2f6b4f', steel: '#a9b3bb' };
	var SIZE_NAMES = { XS: 'Extra small', S: 'Small', M: 'Medium', L: 'Large', XL: 'Extra large' };

	var p = window.SHOP.find(new URLSearchParams(location.search).get('id'));
	if (!p) {
		document.getElementById('product').hidden = true;
		document.getElementById('not-found').hidden = false;
		document.title = 'Product not found — Trailhead Outfitters';
		return;
	}
	document.title = p.name + ' — Trailhead Outfitters';
	document.getElementById('product-name').textContent = p.name;
	document.getElementById('product-price').textContent = window.SHOP.money(p.price);
	document.getElementById('product-rating').textContent =
		'\u2605 ' + p.rating.toFixed(1) + ' (' + p.reviews + ' reviews)';
	document.getElementById('product-description').textContent = p.description;
	var img = document.getElementById('product-image');
	img.src = '/shop/img/' + p.image;
	img.alt = p.name;

	var crumb = document.getElementById('crumb-category');
	var ca = document.createElement('a');
	ca.href = '/shop/search.html?q=' + encodeURIComponent(p.category.toLowerCase()).replace(/%20/g, '+');
	ca.textContent = p.category;
	crumb.textContent = '';
	crumb.appendChild(ca);

	var size = document.getElementById('shoe-size');
	if (p.sizes.length) {
		p.sizes.forEach(function (s) {
			var o = document.createElement('option');
			o.value = s;
			o.textContent = /^[0-9.]+$/.test(s) ? 'US ' + s : (SIZE_NAMES[s] || s);
			size.appendChild(o);
		});
	} else {
		document.getElementById('size-field').hidden = true;
	}

	var colours = document.getElementById('colours');
	var colourName = document.getElementById('colour-name');
	p.colours.forEach(function (c, i) {
		var label = document.createElement('label');
		label.className = 'swatch';
		label.htmlFor = 'colour-' + c;
		var input = document.createElement('input');
		input.type = 'radio';
		input.name = 'colour';
		input.id = 'colour-' + c;
		input.value = c;
		input.checked = i === 0;
		input.addEventListener('change', function () {
			colourName.textContent = window.SHOP.capital(c);
		});
		var dot = document.createElement('span');
		dot.className = 'dot';
		dot.style.backgroundColor = SWATCH[c] || '#ccc';
		label.appendChild(input);
		label.appendChild(dot);
		label.appendChild(document.createTextNode(window.SHOP.capital(c)));
		colours.appendChild(label);
	});
	colourName.textContent = window.SHOP.capital(p.colours[0]);

	var error = document.getElementById('form-error');
	var added = document.getElementById('added');
	document.getElementById('buy-form').addEventListener('submit', function (e) {
		e.preventDefault();
		added.hidden = true;
		if (p.sizes.length && !size.value) {
			error.textContent = 'Please choose a size.';
			error.hidden = false;
			size.focus();
			return;
		}
		error.hidden = true;
		var colour = document.querySelector('input[name=colour]:checked').value;
		var qty = Math.max(1, Math.min(10, parseInt(document.getElementById('qty').value, 10) || 1));
		window.CART.add(p.id, p.sizes.length ? size.value : 'One size', colour, qty);
		added.hidden = false;
	});
})();
