// coupon.js - the checkout's web components, written the way design systems write them:
//   <coupon-box>    an open shadow root holding the code field (#coupon) and an <apply-button>
//   <apply-button>  a second open shadow root, nested in the first, holding the Apply button (#apply)
// Apply with a code goes to applied.html?coupon=CODE (a navigation the click itself starts).
// No inline script and no innerHTML: the page works under keynode sites --csp.
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text) e.textContent = text;
  return e;
}

customElements.define('apply-button', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    const b = el('button', { id: 'apply', class: 'apply', type: 'button' }, 'Apply');
    b.addEventListener('click', () => this.dispatchEvent(new CustomEvent('apply', { bubbles: true, composed: true })));
    root.append(b);
  }
});

customElements.define('coupon-box', class extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: 'open' });
    const label = el('label', {}, 'Coupon code ');
    const input = el('input', { id: 'coupon', name: 'coupon', autocomplete: 'off' });
    label.append(input);
    const msg = el('p', { id: 'coupon-msg', role: 'status' });
    const apply = el('apply-button', {});
    apply.addEventListener('apply', () => {
      const code = input.value.trim();
      if (!code) {
        msg.textContent = 'Enter a coupon code';
        return;
      }
      location.href = 'applied.html?coupon=' + encodeURIComponent(code);
    });
    root.append(label, ' ', apply, msg);
  }
});
