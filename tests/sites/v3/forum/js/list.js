/* list.js — the forum listing: every post, newest first, optionally one category (?category=). */
(function () {
	'use strict';
	var category = new URLSearchParams(location.search).get('category') || '';
	var posts = window.FORUM.all().filter(function (p) {
		return !category || p.category === category;
	});

	Array.prototype.forEach.call(document.querySelectorAll('#category-tabs a'), function (a) {
		if (a.getAttribute('data-category') === category)
			a.className = 'rs-active';
	});
	if (category && window.FORUM.categories[category]) {
		document.getElementById('list-title').textContent = window.FORUM.categories[category];
		document.title = window.FORUM.categories[category] + ' — Trailhead Community';
	}

	var list = document.getElementById('post-list');
	document.getElementById('no-posts').hidden = posts.length > 0;
	list.hidden = posts.length === 0;
	posts.forEach(function (p) {
		var li = document.createElement('li');
		li.className = 'rs-post-item';
		li.id = 'post-' + p.id;

		var main = document.createElement('div');
		var a = document.createElement('a');
		a.className = 'rs-post-title';
		a.href = '/forum/post.html?id=' + p.id;
		a.textContent = p.title;
		var meta = document.createElement('div');
		meta.className = 'rs-post-meta';
		meta.appendChild(window.FORUM.badge(p.category));
		meta.appendChild(document.createTextNode(' by ' + p.author + ' \u00b7 ' + window.FORUM.date(p.created)));
		main.appendChild(a);
		main.appendChild(meta);

		var count = document.createElement('div');
		count.className = 'rs-reply-count';
		var n = document.createElement('strong');
		n.textContent = String(p.replies.length);
		count.appendChild(n);
		count.appendChild(document.createTextNode(p.replies.length === 1 ? 'reply' : 'replies'));

		li.appendChild(main);
		li.appendChild(count);
		list.appendChild(li);
	});
})();
