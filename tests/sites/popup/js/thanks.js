/* thanks.js — confirms the subscription from the query string (?email=…&freq=…), tells the
 * page that opened this window, and closes the window on request. */
(function () {
	'use strict';
	var params = new URLSearchParams(location.search);
	var email = params.get('email') || 'you';
	var freq = params.get('freq') === 'monthly' ? 'monthly' : 'weekly';
	document.getElementById('thanks-message').textContent =
		'Thanks! We will send the Journal to ' + email + (freq === 'monthly' ? ' once a month.' : ' every week.');
	if (window.opener && !window.opener.closed) {
		try {
			window.opener.postMessage({ type: 'subscribed', email: email, freq: freq }, location.origin);
		} catch (e) { /* the opener navigated elsewhere */ }
	}
	document.getElementById('close-window').addEventListener('click', function () {
		window.close();
	});
})();
