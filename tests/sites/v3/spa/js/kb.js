/* kb.js — the Help Centre, a single page that navigates with history.pushState. What is shown
 * follows the query string: nothing (home), ?topic=ID, ?view=article&id=N, ?q=WORDS (search).
 * Links marked data-spa and the search form are intercepted: the URL changes with pushState (no
 * page load) and the view is rendered; Back/Forward (popstate) render again. A reload works too,
 * since every state is a real URL of this same file. */
(function () {
	'use strict';
	var view = document.getElementById('kb-view');
	var input = document.getElementById('kb-search');

	function el(tag, className, text) {
		var e = document.createElement(tag);
		if (className)
			e.className = className;
		if (text !== undefined)
			e.textContent = text;
		return e;
	}
	function link(href, text, id) {
		var a = el('a', null, text);
		a.href = href;
		a.setAttribute('data-spa', '');
		if (id)
			a.id = id;
		return a;
	}
	function topic(id) {
		return window.KB.topics.filter(function (t) { return t.id === id; })[0] || null;
	}
	function article(id) {
		id = Number(id);
		return window.KB.articles.filter(function (a) { return a.id === id; })[0] || null;
	}
	function articleList(articles, className) {
		var ul = el('ul', className);
		articles.forEach(function (a) {
			var li = el('li');
			li.id = 'article-' + a.id;
			li.appendChild(link('/spa/kb.html?view=article&id=' + a.id, a.title));
			li.appendChild(el('p', null, a.body[0].slice(0, 110) + (a.body[0].length > 110 ? '\u2026' : '')));
			ul.appendChild(li);
		});
		return ul;
	}

	/* Articles containing every word of q (title or text); words of 4+ letters also match
	 * without a trailing "s", so "refund" finds "refunds". */
	function search(q) {
		var words = q.toLowerCase().split(/[^a-z0-9]+/).filter(function (w) { return w.length > 1; });
		if (!words.length)
			return [];
		return window.KB.articles.filter(function (a) {
			var hay = (a.title + ' ' + a.body.join(' ')).toLowerCase();
			return words.every(function (w) {
				var stem = w.length > 3 && w.charAt(w.length - 1) === 's' ? w.slice(0, -1) : w;
				return hay.indexOf(stem) !== -1;
			});
		});
	}

	function home() {
		view.appendChild(el('h2', null, 'Browse by topic'));
		var ul = el('ul', 'rs-topics');
		window.KB.topics.forEach(function (t) {
			var li = el('li');
			var a = link('/spa/kb.html?topic=' + t.id, '', 'topic-' + t.id);
			a.appendChild(el('strong', null, t.title));
			a.appendChild(el('span', null, t.summary));
			li.appendChild(a);
			ul.appendChild(li);
		});
		view.appendChild(ul);
		view.appendChild(el('h2', null, 'Popular articles'));
		view.appendChild(articleList([article(11), article(14), article(17)], 'rs-article-list'));
		document.title = 'Help Centre \u2014 Trailhead';
	}

	function render() {
		var params = new URLSearchParams(location.search);
		view.textContent = '';
		var q = params.get('q');
		input.value = q || '';
		if (q !== null) {
			var found = search(q);
			view.appendChild(el('h2', null, found.length + (found.length === 1 ? ' article' : ' articles') +
				' for \u201c' + q + '\u201d'));
			if (found.length)
				view.appendChild(articleList(found, 'rs-kb-results'));
			else
				view.appendChild(el('p', null, 'No articles match. Try fewer words, or browse a topic above.'));
			document.title = q + ' \u2014 Help Centre search';
			return;
		}
		if (params.get('view') === 'article') {
			var a = article(params.get('id'));
			if (!a) {
				view.appendChild(el('p', null, 'That article does not exist.'));
				return;
			}
			var t = topic(a.topic);
			var box = el('article', 'rs-kb-article');
			box.id = 'article';
			var crumbs = el('div', 'rs-crumbs');
			crumbs.appendChild(link('/spa/kb.html', 'Help Centre'));
			crumbs.appendChild(document.createTextNode(' \u203a '));
			crumbs.appendChild(link('/spa/kb.html?topic=' + t.id, t.title));
			box.appendChild(crumbs);
			var h = el('h1', null, a.title);
			h.id = 'article-title';
			box.appendChild(h);
			var body = el('div');
			body.id = 'article-body';
			a.body.forEach(function (p) { body.appendChild(el('p', null, p)); });
			box.appendChild(body);
			var helpful = el('div', 'rs-helpful');
			helpful.appendChild(document.createTextNode('Was this helpful? '));
			['Yes', 'No'].forEach(function (label) {
				var b = el('button', null, label);
				b.type = 'button';
				b.id = 'helpful-' + label.toLowerCase();
				b.addEventListener('click', function () {
					helpful.textContent = 'Thanks for the feedback!';
				});
				helpful.appendChild(b);
			});
			box.appendChild(helpful);
			view.appendChild(box);
			document.title = a.title + ' \u2014 Help Centre';
			return;
		}
		var tid = params.get('topic');
		if (tid) {
			var tp = topic(tid);
			if (!tp) {
				view.appendChild(el('p', null, 'No such topic.'));
				return;
			}
			view.appendChild(el('h2', null, tp.title));
			view.appendChild(articleList(window.KB.articles.filter(function (x) { return x.topic === tid; }), 'article-list'));
			document.title = tp.title + ' \u2014 Help Centre';
			return;
		}
		home();
	}

	function go(url) {
		history.pushState(null, '', url);
		render();
		window.scrollTo(0, 0);
	}

	document.addEventListener('click', function (e) {
		var a = e.target.closest ? e.target.closest('a[data-spa]') : null;
		if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
			return;
		if (a.origin !== location.origin)
			return;
		e.preventDefault();
		go(a.pathname + a.search);
	});
	document.getElementById('kb-search-form').addEventListener('submit', function (e) {
		e.preventDefault();
		var q = input.value.trim();
		if (!q)
			return;
		go('/spa/kb.html?' + new URLSearchParams({ q: q }).toString());
	});
	window.addEventListener('popstate', render);
	render();
})();
