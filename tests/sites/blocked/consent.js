// consent.js — builds the consent wall of one consent-management platform over the page, as the
// platform's own script does: the markup the default `blocked.consent_walls` / `consent_dismiss`
// selectors name (services/replay/blocked.c). <script data-cmp="onetrust" data-dismiss="1">:
// with data-dismiss="1" the wall has the platform's accept button, which removes the wall.
(function () {
  const me = document.currentScript;
  const cmp = me.dataset.cmp, dismiss = me.dataset.dismiss === '1';
  const walls = {
    onetrust: ['div', 'id', 'onetrust-consent-sdk', 'button', 'id', 'onetrust-accept-btn-handler'],
    cookiebot: ['div', 'id', 'CybotCookiebotDialog', 'button', 'id', 'CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll'],
    fundingchoices: ['div', 'class', 'fc-consent-root', 'button', 'class', 'fc-cta-consent'],
    quantcast: ['div', 'id', 'qc-cmp2-container', 'button', 'mode', 'primary'],
    sourcepoint: ['div', 'id', 'sp_message_container_1099', null],
    didomi: ['div', 'id', 'didomi-host', 'button', 'id', 'didomi-notice-agree-button'],
    usercentrics: ['aside', 'id', 'usercentrics-root', null]
  };
  const w = walls[cmp];
  if (!w) return;
  const root = document.createElement(w[0]);
  root.setAttribute(w[1], w[2]);
  const filter = document.createElement('div');
  filter.className = 'wall-filter';
  const box = document.createElement('div');
  box.className = 'wall-box';
  box.textContent = 'We value your privacy. We and our partners use cookies to personalise content. ';
  let holder = box;
  if (cmp === 'quantcast') { holder = document.createElement('div'); holder.id = 'qc-cmp2-ui'; box.appendChild(holder); }
  const more = document.createElement('button');
  more.textContent = 'More options';
  holder.appendChild(more);
  if (dismiss && w[3]) {
    const b = document.createElement(w[3]);
    b.setAttribute(w[4], w[5]);
    b.textContent = 'Accept all';
    b.addEventListener('click', () => root.remove());
    holder.appendChild(b);
  }
  root.append(filter, box);
  document.body.appendChild(root);
})();
