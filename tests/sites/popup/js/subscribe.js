/* subscribe.js — "No thanks" closes the popup. The form itself is a plain GET form to
 * /popup/thanks.html, so its fields end up in that page's query string. */
(function () {
	'use strict';
	document.getElementById('sub-cancel').addEventListener('click', function () {
		window.close();
	});
})();
