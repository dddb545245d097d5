/* The page of sw.html: registers sw.js (scope /sw/) and enables the button once the worker controls
 * the page; the button posts the gift card to /sw/send, which only the worker answers (it sends its
 * own fetch to /api/giftcards). Not named `status`: a global of that name is window.status. */
var worker = document.getElementById('worker');
var send = document.getElementById('send-gift');
function controlled() {
  worker.textContent = 'controlled';
  send.disabled = false;
}
if (navigator.serviceWorker.controller) {
  controlled();
} else {
  navigator.serviceWorker.addEventListener('controllerchange', controlled);
  navigator.serviceWorker.register('/sw/sw.js', { scope: '/sw/' })
    .catch(function (e) { worker.textContent = 'failed: ' + e; });
}
send.addEventListener('click', function () {
  fetch('/sw/send', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ card: 'gift', amount: 50, to: document.getElementById('to').value })
  }).then(function (r) { return r.text().then(function (t) { return r.status + ' ' + t; }); })
    .then(function (t) { document.getElementById('answer').textContent = 'answer: ' + t; },
          function (e) { document.getElementById('answer').textContent = 'failed: ' + e; });
});
