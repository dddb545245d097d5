/* products.js — the Ridgeline Market catalogue: products sharing attributes (waterproof,
 * lightweight, …) and options (colour, size), for the purchase-reward tests (purchase.sh); 7-9
 * carry goal.py's harder cases (non-ASCII text, an en dash, a phrase split over bullet points, an
 * attribute only in the description, a pre-selected "1 pack", a fuzzy near miss, an adjective
 * before the type noun). */
var MARKET = [
  { id: 1, title: 'Trail Running Shoe Pro', price: '$59.99',
    attributes: ['waterproof', 'lightweight', 'non-slip sole'],
    colors: ['blue', 'black', 'red'], sizes: ['8', '9', '10'] },
  { id: 2, title: 'Trail Running Shoe Lite', price: '$39.50',
    attributes: ['lightweight', 'breathable'], colors: ['blue', 'grey'], sizes: ['9', '10'] },
  { id: 3, title: 'Trail Running Shoe Max', price: '$79.00',
    attributes: ['waterproof', 'lightweight'], colors: ['blue', 'green'], sizes: ['9', '10'] },
  { id: 4, title: 'Hiking Boot Classic', price: '$89.00',
    attributes: ['waterproof', 'leather upper'], colors: ['brown', 'black'],
    sizes: ['9', '10', '11'] },
  { id: 5, title: 'Packable Rain Jacket', price: '$75.00',
    attributes: ['waterproof', 'lightweight'], colors: ['navy', 'red'], sizes: ['s', 'm', 'l'] },
  { id: 6, title: 'Running Sock Pack', price: '$12.00',
    attributes: ['breathable', 'lightweight'], colors: ['white', 'black'], sizes: ['m', 'l'] },
  { id: 7, title: 'CRÈME BRÛLÉE Café Crème Ramekin', price: '$24.00',
    attributes: ['water\u2013resistant'], bullets: ['Rim of stainless', 'steel, oven safe'],
    description: 'Dishwasher safe and BPA free.', colors: ['blue', 'white'],
    sizes: ['1 pack', '2 pack'] },
  { id: 8, title: 'USB Phone Charger', price: '$15.99', attributes: ['fast charngig'],
    colors: ['black'], sizes: ['1'] },
  { id: 9, title: 'Waterproof Hiking Boot', price: '$70.00', attributes: ['waterproof'],
    colors: ['brown'], sizes: ['9'] }
];
