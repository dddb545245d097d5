/* The payment frame's origin: another site on the port of ?pay=PORT — "localhost" when this page is
 * on 127.0.0.1 (and the reverse), so Chromium puts the frame in a process of its own (an out-of-process
 * iframe, as a real payment provider's frame is), never an outside address. */
var port = new URLSearchParams(location.search).get('pay');
var host = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
if (port && /^[0-9]+$/.test(port))
  document.getElementById('pay-frame').src = location.protocol + '//' + host + ':' + port + '/pay.html';
