/* mail.js — Pinemail's router and views. Everything is one page; the route lives in the URL
 * fragment: #/inbox, #/starred, #/sent, #/message/ID, #/compose, #/compose/reply/ID, #/settings.
 * A visit without a fragment is sent to #/inbox with location.replace (no extra history entry).
 * State a user changes (read flags, sent mail, settings) is kept in localStorage. */
(function () {
	'use strict';
	var seed = window.MAIL_SEED;
	var view = document.getElementById('view');

	function load(key, fallback) {
		try {
			var v = JSON.parse(localStorage.getItem(key) || 'null');
			return v === null ? fallback : v;
		} catch (e) {
			return fallback;
		}
	}
	function store(key, value) {
		localStorage.setItem(key, JSON.stringify(value));
	}
	function settings() {
		return Object.assign({ name: seed.me.name, theme: 'light', notify: true, signature: '' },
			load('pinemail-settings', {}));
	}
	function applyTheme() {
		var t = settings().theme;
		var dark = t === 'dark' || (t === 'system' && window.matchMedia &&
			window.matchMedia('(prefers-color-scheme: dark)').matches);
		document.body.className = dark ? 'rs-theme-dark' : '';
	}
	function read() {
		return load('pinemail-read', []);
	}
	function sent() {
		return seed.sent.concat(load('pinemail-sent', []));
	}
	function findMessage(id) {
		id = Number(id);
		return seed.inbox.concat(sent()).filter(function (m) { return m.id === id; })[0] || null;
	}

	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		Object.keys(attrs || {}).forEach(function (k) {
			if (k === 'className')
				e.className = attrs[k];
			else
				e.setAttribute(k, attrs[k]);
		});
		if (text !== undefined)
			e.textContent = text;
		return e;
	}
	function heading(text) {
		view.appendChild(el('h1', {}, text));
	}
	function flash(text, id) {
		var p = el('p', { className: 'rs-flash', role: 'status' }, text);
		if (id)
			p.id = id;
		view.insertBefore(p, view.firstChild);
	}

	function list(messages, outgoing) {
		if (!messages.length) {
			view.appendChild(el('p', { className: 'rs-empty' }, 'Nothing here.'));
			return;
		}
		var ul = el('ul', { className: 'rs-message-list' });
		var seen = read();
		messages.forEach(function (m) {
			var li = el('li', { id: 'message-' + m.id });
			if (!outgoing && seen.indexOf(m.id) === -1)
				li.className = 'rs-unread';
			var a = el('a', { href: '#/message/' + m.id });
			a.appendChild(el('span', { className: 'rs-who' }, outgoing ? 'To: ' + m.to : m.from));
			var subj = el('span', { className: 'rs-subject' }, m.subject);
			subj.appendChild(el('span', { className: 'rs-snippet' }, ' \u2014 ' + m.body[0]));
			a.appendChild(subj);
			a.appendChild(el('time', {}, m.date));
			li.appendChild(a);
			ul.appendChild(li);
		});
		view.appendChild(ul);
	}

	function showMessage(id) {
		var m = findMessage(id);
		if (!m) {
			notFound();
			return;
		}
		var seen = read();
		if (seen.indexOf(m.id) === -1) {
			seen.push(m.id);
			store('pinemail-read', seen);
		}
		var box = el('article', { className: 'rs-message', id: 'message' });
		box.appendChild(el('p', {}, '')).appendChild(el('a', { href: m.to ? '#/sent' : '#/inbox', id: 'back-link' },
			m.to ? '\u2190 Sent' : '\u2190 Inbox'));
		box.appendChild(el('h1', { id: 'message-subject' }, m.subject));
		box.appendChild(el('div', { className: 'rs-from', id: 'message-from' },
			(m.to ? 'To: ' + m.to : 'From: ' + m.from) + ' <' + m.address + '> \u00b7 ' + m.date));
		var body = el('div', { className: 'rs-body', id: 'message-body' });
		m.body.forEach(function (t) { body.appendChild(el('p', {}, t)); });
		box.appendChild(body);
		if (!m.to)
			box.appendChild(el('a', { className: 'rs-btn', id: 'reply-btn', href: '#/compose/reply/' + m.id }, 'Reply'));
		view.appendChild(box);
		document.title = m.subject + ' \u2014 Pinemail';
	}

	function compose(replyTo) {
		heading(replyTo ? 'Reply' : 'New message');
		var form = el('form', { className: 'rs-panel', id: 'compose-form' });
		form.innerHTML =
			'<div class="field"><label for="compose-to">To</label><input type="email" id="compose-to" name="to" required></div>' +
			'<div class="field"><label for="compose-subject">Subject</label><input type="text" id="compose-subject" name="subject"></div>' +
			'<div class="field"><label for="compose-body">Message</label><textarea id="compose-body" name="body"></textarea></div>' +
			'<button type="submit" class="btn" id="send-btn">Send</button>';
		view.appendChild(form);
		var original = replyTo ? findMessage(replyTo) : null;
		if (original) {
			form.querySelector('#compose-to').value = original.address;
			form.querySelector('#compose-subject').value = 'Re: ' + original.subject;
		}
		var sig = settings().signature;
		if (sig)
			form.querySelector('#compose-body').value = '\n\n' + sig;
		form.addEventListener('submit', function (e) {
			e.preventDefault();
			var mine = load('pinemail-sent', []);
			var to = form.querySelector('#compose-to').value.trim();
			mine.push({ id: 100 + mine.length, to: to, address: to, date: 'Now',
				subject: form.querySelector('#compose-subject').value.trim() || '(no subject)',
				body: form.querySelector('#compose-body').value.split(/\n\s*\n/) });
			store('pinemail-sent', mine);
			sessionStorage.setItem('pinemail-flash', 'Message sent.');
			location.hash = '#/sent';
		});
	}

	function settingsView() {
		heading('Settings');
		var s = settings();
		var form = el('form', { className: 'rs-panel', id: 'settings-form' });
		form.innerHTML =
			'<div class="field"><label for="display-name">Display name</label><input type="text" id="display-name" name="name"></div>' +
			'<div class="field"><label for="theme">Theme</label><select id="theme" name="theme">' +
			'<option value="light">Light</option><option value="dark">Dark</option><option value="system">Same as my device</option>' +
			'</select></div>' +
			'<div class="field check"><input type="checkbox" id="notify" name="notify"> <label for="notify">Email me about new messages</label></div>' +
			'<div class="field"><label for="signature">Signature</label><textarea id="signature" name="signature"></textarea></div>' +
			'<button type="submit" class="btn" id="save-settings">Save settings</button>';
		view.appendChild(form);
		form.querySelector('#display-name').value = s.name;
		form.querySelector('#theme').value = s.theme;
		form.querySelector('#notify').checked = !!s.notify;
		form.querySelector('#signature').value = s.signature;
		form.addEventListener('submit', function (e) {
			e.preventDefault();
			store('pinemail-settings', {
				name: form.querySelector('#display-name').value.trim() || seed.me.name,
				theme: form.querySelector('#theme').value,
				notify: form.querySelector('#notify').checked,
				signature: form.querySelector('#signature').value
			});
			applyTheme();
			var old = document.getElementById('settings-saved');
			if (old)
				old.parentNode.removeChild(old);
			flash('Settings saved.', 'settings-saved');
		});
	}

	function notFound() {
		heading('Not found');
		view.appendChild(el('p', { className: 'rs-empty' }, 'There is nothing at this address. '))
			.appendChild(el('a', { href: '#/inbox' }, 'Go to the inbox'));
	}

	function markNav(name) {
		['inbox', 'starred', 'sent', 'settings'].forEach(function (n) {
			document.getElementById('nav-' + n).className = n === name ? 'active' : '';
		});
		var unread = seed.inbox.filter(function (m) { return read().indexOf(m.id) === -1; }).length;
		document.getElementById('unread-count').textContent = unread ? String(unread) : '';
	}

	function route() {
		var hash = location.hash.replace(/^#/, '');
		if (!hash || hash === '/') {
			location.replace('#/inbox');
			return;
		}
		var parts = hash.split('/').slice(1);
		view.textContent = '';
		document.title = 'Pinemail';
		switch (parts[0]) {
		case 'inbox':
			heading('Inbox');
			list(seed.inbox, false);
			document.title = 'Inbox \u2014 Pinemail';
			break;
		case 'starred':
			heading('Starred');
			list(seed.inbox.filter(function (m) { return m.starred; }), false);
			break;
		case 'sent':
			heading('Sent');
			list(sent(), true);
			break;
		case 'message':
			showMessage(parts[1]);
			break;
		case 'compose':
			compose(parts[1] === 'reply' ? parts[2] : null);
			break;
		case 'settings':
			settingsView();
			document.title = 'Settings \u2014 Pinemail';
			break;
		default:
			notFound();
		}
		markNav(parts[0] === 'message' ? '' : parts[0]);
		var msg = sessionStorage.getItem('pinemail-flash');
		if (msg) {
			sessionStorage.removeItem('pinemail-flash');
			flash(msg);
		}
	}

	applyTheme();
	window.addEventListener('hashchange', route);
	route();
})();
