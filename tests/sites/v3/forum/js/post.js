/* post.js — one post (/forum/post.html?id=N) with its replies and a reply form. */
(function () {
	'use strict';
	var id = new URLSearchParams(location.search).get('id');
	var post = window.FORUM.find(id);
	if (!post) {
		document.getElementById('post').hidden = true;
		document.getElementById('replies-section').hidden = true;
		document.getElementById('post-missing').hidden = false;
		document.title = 'Post not found — Trailhead Community';
		return;
	}
	document.title = post.title + ' — Trailhead Community';
	document.getElementById('post-category').appendChild(window.FORUM.badge(post.category));
	document.getElementById('post-title').textContent = post.title;
	document.getElementById('post-meta').textContent = 'Posted by ' + post.author + ' on ' + window.FORUM.date(post.created);
	var body = document.getElementById('post-body');
	post.body.forEach(function (text) {
		var para = document.createElement('p');
		para.textContent = text;
		body.appendChild(para);
	});

	function renderReplies(replies) {
		document.getElementById('reply-count').textContent =
			replies.length === 1 ? '1 reply' : replies.length + ' replies';
		var list = document.getElementById('replies');
		list.textContent = '';
		replies.forEach(function (r) {
			var li = document.createElement('li');
			li.className = 'rs-reply';
			var meta = document.createElement('div');
			meta.className = 'rs-post-meta';
			meta.textContent = r.author + ' \u00b7 ' + window.FORUM.date(r.created);
			var text = document.createElement('div');
			text.textContent = r.body;
			li.appendChild(meta);
			li.appendChild(text);
			list.appendChild(li);
		});
	}
	renderReplies(post.replies);

	document.getElementById('reply-form').addEventListener('submit', function (e) {
		e.preventDefault();
		var box = document.getElementById('reply-body');
		var text = box.value.trim();
		if (!text)
			return;
		window.FORUM.reply(post.id, text);
		box.value = '';
		renderReplies(window.FORUM.find(post.id).replies);
	});
})();
