/* catalogue.js — the shop's product catalogue (what a real shop would load from its API).
 * Prices are in cents. Search matches every query word against name, category, colours and tags. */
(function () {
	'use strict';
	var SHOE_SIZES = ['7', '7.5', '8', '8.5', '9', '9.5', '10', '10.5', '11', '12'];
	var CLOTHES_SIZES = ['XS', 'S', 'M', 'L', 'XL'];

	window.SHOP_CATALOGUE = [
		{ id: 1, name: 'Trail Blazer GTX', category: 'Hiking shoes', price: 12900, image: 'shoe-brown.svg',
		  colours: ['brown', 'grey'], sizes: SHOE_SIZES, rating: 4.6, reviews: 212,
		  tags: ['hiking', 'boots', 'waterproof', 'shoes'],
		  description: 'A waterproof mid-height boot with a grippy lug sole for rough, wet trails.' },
		{ id: 2, name: 'Tempo Racer', category: 'Running shoes', price: 9900, image: 'shoe-black.svg',
		  colours: ['black', 'red'], sizes: SHOE_SIZES, rating: 4.3, reviews: 98,
		  tags: ['running', 'road', 'shoes', 'racing'],
		  description: 'A light road shoe with a springy foam midsole for tempo runs and race day.' },
		{ id: 3, name: 'Red Runner', category: 'Running shoes', price: 8900, image: 'shoe-red.svg',
		  colours: ['red', 'white'], sizes: SHOE_SIZES, rating: 4.8, reviews: 341,
		  tags: ['running', 'trail', 'shoes', 'lightweight'],
		  description: 'Our best-selling trail runner: secure fit, rock plate, and a colour you will not lose in the woods.' },
		{ id: 4, name: 'Cloudstep Walker', category: 'Walking shoes', price: 7500, image: 'shoe-white.svg',
		  colours: ['white', 'blue'], sizes: SHOE_SIZES, rating: 4.1, reviews: 57,
		  tags: ['walking', 'everyday', 'shoes'],
		  description: 'Cushioned everyday walking shoes with a breathable knit upper.' },
		{ id: 5, name: 'Ridge Runner Socks (3-pack)', category: 'Socks', price: 1800, image: 'socks.svg',
		  colours: ['red', 'grey'], sizes: ['S', 'M', 'L'], rating: 4.5, reviews: 120,
		  tags: ['running', 'merino', 'socks'],
		  description: 'Merino blend running socks that stay dry and do not slip.' },
		{ id: 6, name: 'Summit Down Jacket', category: 'Jackets', price: 18900, image: 'jacket-red.svg',
		  colours: ['red', 'navy'], sizes: CLOTHES_SIZES, rating: 4.7, reviews: 76,
		  tags: ['down', 'insulated', 'winter', 'jacket'],
		  description: '700-fill down jacket that packs into its own pocket.' },
		{ id: 7, name: 'Summit Fleece', category: 'Fleece jackets', price: 5900, image: 'fleece.svg',
		  colours: ['green', 'grey', 'navy'], sizes: CLOTHES_SIZES, rating: 4.4, reviews: 189,
		  tags: ['fleece', 'midlayer', 'jacket'],
		  description: 'A warm grid fleece midlayer with a full zip and thumb loops.' },
		{ id: 8, name: 'Pine 2 Tent', category: 'Tents', price: 24900, image: 'tent.svg',
		  colours: ['green'], sizes: [], rating: 4.5, reviews: 64,
		  tags: ['tent', 'camping', 'backpacking', '2-person'],
		  description: 'A freestanding two-person backpacking tent, 1.6 kg on the trail.' },
		{ id: 9, name: 'Daypack 22', category: 'Backpacks', price: 6500, image: 'pack.svg',
		  colours: ['red', 'black', 'blue'], sizes: [], rating: 4.2, reviews: 143,
		  tags: ['backpack', 'daypack', 'hiking'],
		  description: 'A 22-litre daypack with a ventilated back panel and hip belt pockets.' },
		{ id: 10, name: 'Trekking Poles (pair)', category: 'Accessories', price: 4500, image: 'poles.svg',
		  colours: ['black'], sizes: [], rating: 4.0, reviews: 38,
		  tags: ['poles', 'hiking', 'trekking'],
		  description: 'Aluminium telescopic poles with cork grips and flick locks.' },
		{ id: 11, name: 'Insulated Bottle 750 ml', category: 'Accessories', price: 2400, image: 'bottle.svg',
		  colours: ['red', 'blue', 'steel'], sizes: [], rating: 4.6, reviews: 402,
		  tags: ['bottle', 'water', 'insulated'],
		  description: 'Keeps drinks cold for 24 hours or hot for 12.' },
		{ id: 12, name: 'Headlamp 300', category: 'Accessories', price: 3500, image: 'headlamp.svg',
		  colours: ['black'], sizes: [], rating: 4.4, reviews: 88,
		  tags: ['light', 'headlamp', 'camping'],
		  description: 'A 300-lumen rechargeable headlamp with a red night mode.' }
	];

	/* Lower-case words of a query, without little words that match everything. */
	var STOP = { a: 1, an: 1, the: 1, for: 1, with: 1, and: 1, in: 1, of: 1 };
	function words(text) {
		return String(text || '').toLowerCase().split(/[^a-z0-9.-]+/).filter(function (w) {
			return w && !STOP[w];
		});
	}

	window.SHOP = {
		find: function (id) {
			id = Number(id);
			for (var i = 0; i < window.SHOP_CATALOGUE.length; i++)
				if (window.SHOP_CATALOGUE[i].id === id)
					return window.SHOP_CATALOGUE[i];
			return null;
		},
		/* Products matching every word of q, in catalogue order. */
		search: function (q) {
			var ws = words(q);
			if (!ws.length)
				return [];
			return window.SHOP_CATALOGUE.filter(function (p) {
				var hay = [p.name, p.category, p.colours.join(' '), p.tags.join(' ')].join(' ').toLowerCase();
				return ws.every(function (w) {
					/* "shoe" finds "shoes" and "shoes" finds "shoe" */
					var stem = w.length > 3 && w.charAt(w.length - 1) === 's' ? w.slice(0, -1) : w;
					return hay.indexOf(stem) !== -1;
				});
			});
		},
		money: function (cents) {
			return '$' + (cents / 100).toFixed(2);
		},
		capital: function (s) {
			return s.charAt(0).toUpperCase() + s.slice(1);
		}
	};
})();
