/* new.js — the new-post form: stores the post (localStorage) and opens its page,
 * /forum/post.html?id=N, where N is one more than the highest post id so far. */
(function () {
	'use strict';
	var form = document.getElementById('new-post-form');
	var error = document.getElementById('form-error');
	form.addEventListener('submit', function (e) {
		e.preventDefault();
		var title = document.getElementById('title').value.trim();
		var category = document.getElementById('category').value;
		var body = document.getElementById('body').value.trim();
		if (!title || !category || !body) {
			error.textContent = 'Please give your post a title, a category and a message.';
			error.hidden = false;
			return;
		}
		error.hidden = true;
		var id = window.FORUM.add(title, category, body);
		location.assign('/forum/post.html?id=' + id);
	});
})();
