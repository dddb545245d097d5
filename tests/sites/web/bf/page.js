// A page restored from the back/forward cache fires pageshow with persisted = true: say so in the
// title (the agent reads it), and let the button still work after the restore.
window.addEventListener('pageshow', function (e) { if (e.persisted) document.title = 'Hut list (restored)'; });
document.getElementById('book').addEventListener('click', function () {
  document.getElementById('out').textContent = 'booked';
});
