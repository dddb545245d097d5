/* forum-store.js — posts = the seed posts plus what visitors wrote (kept in localStorage), and the
 * helpers every forum page uses. */
(function () {
	'use strict';
	var POSTS = 'trailhead-forum-posts';
	var REPLIES = 'trailhead-forum-replies';
	var CATEGORIES = { general: 'General', gear: 'Gear & equipment', trips: 'Trip reports', skills: 'Skills & safety' };

	function read(key, fallback) {
		try {
			var v = JSON.parse(localStorage.getItem(key) || 'null');
			return v === null ? fallback : v;
		} catch (e) {
			return fallback;
		}
	}

	function all() {
		var extraReplies = read(REPLIES, {});
		var posts = window.FORUM_SEED.concat(read(POSTS, [])).map(function (p) {
			var copy = Object.assign({}, p);
			copy.replies = (p.replies || []).concat(extraReplies[p.id] || []);
			return copy;
		});
		/* newest first */
		posts.sort(function (a, b) {
			return a.created < b.created ? 1 : a.created > b.created ? -1 : b.id - a.id;
		});
		return posts;
	}

	window.FORUM = {
		categories: CATEGORIES,
		user: 'trailwalker',
		all: all,
		find: function (id) {
			id = Number(id);
			return all().filter(function (p) { return p.id === id; })[0] || null;
		},
		/* Store a new post; returns its id (one more than the highest so far). */
		add: function (title, category, body) {
			var mine = read(POSTS, []);
			var posts = all();
			var id = posts.reduce(function (m, p) { return Math.max(m, p.id); }, 0) + 1;
			/* a wrong clock must not bury the new post below the seed posts */
			var latest = posts.length ? Date.parse(posts[0].created) : 0;
			var created = new Date(Math.max(Date.now(), latest + 60000)).toISOString();
			mine.push({ id: id, title: title, author: window.FORUM.user, category: category,
				created: created, body: body.split(/\n\s*\n/), replies: [] });
			localStorage.setItem(POSTS, JSON.stringify(mine));
			return id;
		},
		reply: function (id, body) {
			var extra = read(REPLIES, {});
			(extra[id] = extra[id] || []).push({ author: window.FORUM.user, created: new Date().toISOString(), body: body });
			localStorage.setItem(REPLIES, JSON.stringify(extra));
		},
		date: function (iso) {
			var d = new Date(iso);
			return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
		},
		badge: function (category) {
			var span = document.createElement('span');
			span.className = 'rs-cat rs-cat-' + category;
			span.textContent = CATEGORIES[category] || category;
			return span;
		}
	};
})();
