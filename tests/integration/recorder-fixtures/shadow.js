// shadow.js: <x-box> has an open shadow root (#dup and .b again, a field #inner, an <x-nest>); <x-nest>
// has a second open root (#deep); <x-closed> a closed one. Every element carries data-k, its name in the
// test (recorder.test.mjs caseShadow).
function mk(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text) e.textContent = text;
  return e;
}
customElements.define('x-nest', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    this.attachShadow({ mode: 'open' }).append(mk('div', { 'data-k': 'nest-div' }), mk('button', { id: 'deep', class: 'b', 'data-k': 'deep' }, 'Deep'));
  }
});
customElements.define('x-box', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const r = this.attachShadow({ mode: 'open' });
    const wrap = mk('div', { class: 'wrap', 'data-k': 'wrap' });
    wrap.append(mk('button', { id: 'dup', class: 'b', 'data-k': 'shadow-dup' }, 'Shadow dup'), mk('input', { id: 'inner', 'data-k': 'inner' }));
    r.append(wrap, mk('x-nest', { 'data-k': 'nest' }), mk('span', { class: 'b', 'data-k': 'shadow-span' }, 'tail'));
  }
});
customElements.define('x-closed', class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({ mode: 'closed' }).append(mk('button', { id: 'hidden', class: 'b', 'data-k': 'hidden' }, 'Closed'));
  }
});
