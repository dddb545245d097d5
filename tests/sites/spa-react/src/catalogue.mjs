// catalogue.mjs — Orchard's catalogue, the one home of what it sells: app.jsx lists COUNT items and
// each item page fetches its data, which build.mjs writes as api/items/N.json (item(N)) beside the
// app, as a site's API would answer it. A missing file is an item taken off the catalogue.
export const COUNT = 5000;
export const FRUITS = ['Apple', 'Apricot', 'Banana', 'Blackberry', 'Cherry', 'Grape', 'Mango', 'Pear'];

export function item(i) {
  const fruit = FRUITS[i % FRUITS.length];
  return { id: i, name: `Item ${i}`, fruit, price: `$${(1 + (i % 9) * 0.35).toFixed(2)} / kg` };
}
