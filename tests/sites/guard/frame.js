/* The payment frame's origin: the same host on the port of ?pay=PORT (another origin). */
var port = new URLSearchParams(location.search).get('pay');
if (port && /^[0-9]+$/.test(port))
  document.getElementById('pay-frame').src = location.protocol + '//' + location.hostname + ':' + port + '/pay.html';
