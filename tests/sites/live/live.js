// live.js — the live view fixture (tests/integration/liveview.sh, agentlive.sh): Poke turns the page
// red; Accept removes the cookie wall that covers the Next link (wall.html: the whole page).
document.getElementById('poke')?.addEventListener('click', () => {
  document.body.classList.add('poked');
  document.getElementById('poked-state').textContent = 'poked';
});
document.getElementById('accept').addEventListener('click', () => document.body.classList.add('accepted'));
