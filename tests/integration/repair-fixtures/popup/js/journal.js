/* journal.js — the newsletter button opens /popup/subscribe.html in a popup window
 * (window.open); the window tells this page when the reader has subscribed (postMessage). */
(function () {
	'use strict';
	var status = document.getElementById('subscribe-status');
	document.querySelector('#newsletter-box button').addEventListener('click', function () {
		var w = window.open('/popup/subscribe.html', 'trailhead-subscribe', 'popup,width=520,height=640');
		if (!w) {
			status.textContent = 'Your browser blocked the sign-up window. Open it here instead: /popup/subscribe.html';
			status.hidden = false;
		}
	});
	window.addEventListener('message', function (e) {
		if (e.origin !== location.origin || !e.data || e.data.type !== 'subscribed')
			return;
		status.textContent = 'Thanks! ' + e.data.email + ' will get the Journal ' + e.data.freq + '.';
		status.hidden = false;
	});
})();
