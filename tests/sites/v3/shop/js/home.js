/* home.js — the "Best sellers" grid on the shop's home page. */
(function () {
	'use strict';
	var FEATURED = [3, 7, 8, 9];
	var grid = document.getElementById('featured');
	FEATURED.forEach(function (id) {
		var p = window.SHOP.find(id);
		var li = document.createElement('li');
		li.className = 'rs-card';
		li.id = 'featured-' + id;
		var img = document.createElement('img');
		img.src = '/shop/img/' + p.image;
		img.alt = '';
		img.width = 200;
		img.height = 160;
		var h = document.createElement('h3');
		var a = document.createElement('a');
		a.href = '/shop/item.html?id=' + p.id;
		a.textContent = p.name;
		h.appendChild(a);
		var price = document.createElement('div');
		price.className = 'rs-price';
		price.textContent = window.SHOP.money(p.price);
		li.appendChild(img);
		li.appendChild(h);
		li.appendChild(price);
		grid.appendChild(li);
	});
})();
