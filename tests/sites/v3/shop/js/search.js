/* search.js — the results page: reads ?q= from the URL and lists matching products, each a link
 * to /shop/item.html?id=N. */
(function () {
	'use strict';
	var q = (new URLSearchParams(location.search).get('q') || '').trim();
	var input = document.getElementById('q');
	input.value = q;

	var title = document.getElementById('results-title');
	var count = document.getElementById('result-count');
	var list = document.getElementById('results');
	var none = document.getElementById('no-results');

	if (!q) {
		title.textContent = 'Search the shop';
		document.getElementById('no-results-query').textContent = '(nothing yet)';
		none.hidden = false;
		return;
	}
	document.title = q + ' — Search — Trailhead Outfitters';
	title.textContent = 'Results for \u201c' + q + '\u201d';
	var found = window.SHOP.search(q);
	count.textContent = found.length === 1 ? '1 product' : found.length + ' products';
	if (!found.length) {
		document.getElementById('no-results-query').textContent = q;
		none.hidden = false;
		return;
	}
	found.forEach(function (p) {
		var li = document.createElement('li');
		li.className = 'rs-result';
		li.setAttribute('data-product', String(p.id));

		var img = document.createElement('img');
		img.src = '/shop/img/' + p.image;
		img.alt = '';
		img.width = 120;
		img.height = 96;

		var body = document.createElement('div');
		var h = document.createElement('h3');
		var a = document.createElement('a');
		a.className = 'rs-product-link';
		a.href = '/shop/item.html?id=' + p.id;
		a.textContent = p.name;
		h.appendChild(a);
		var meta = document.createElement('p');
		meta.className = 'rs-meta';
		meta.textContent = p.category + ' \u00b7 ' + p.colours.map(window.SHOP.capital).join(', ') +
			' \u00b7 \u2605 ' + p.rating.toFixed(1);
		body.appendChild(h);
		body.appendChild(meta);

		var price = document.createElement('span');
		price.className = 'rs-price';
		price.textContent = window.SHOP.money(p.price);

		var wrap = document.createElement('div');
		wrap.className = 'rs-card-body';
		wrap.appendChild(price);
		wrap.appendChild(body);
		li.appendChild(wrap);
		li.appendChild(img);
		list.appendChild(li);
	});
})();
