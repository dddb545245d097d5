// applied.js - says which coupon the checkout applied (from ?coupon=).
const code = new URLSearchParams(location.search).get('coupon') || '';
document.getElementById('applied').textContent = code ? 'Coupon ' + code + ': 10% off' : 'No coupon';
