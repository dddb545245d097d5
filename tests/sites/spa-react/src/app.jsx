// app.jsx — Orchard, a single-page shop as today's React sites are built: react-router's client-side
// routes, a virtualized list (only the rows in view exist), item pages that fetch their data from the
// site's own API and show a not-found state when it answers 404 (a soft 404: the shell answered 200),
// an autocomplete in the MUI style (ids from useId, options in a listbox), class names hashed from
// their styles as emotion does, test ids on some elements and not on others. build.mjs bundles it
// twice with esbuild, against React 19 and React 18: the same page, with the ids and classes each
// React version and build makes up.
import React, { useEffect, useId, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Link, Route, Routes, useLocation, useNavigate, useParams } from 'react-router';
import { COUNT, FRUITS } from './catalogue.mjs';

const BUILD = `react-${React.version}`;
const ROW = 40;
// the items the list shows: every one, but those build.mjs --drop took off the catalogue
const LISTED = Array.from({ length: COUNT }, (_, i) => i).filter((i) => !KN_DROPPED.includes(i));

// "css-" + a hash of the style and the build, as emotion names the classes it injects
function css(style) {
  let h = 5381;
  for (const c of style + BUILD) h = ((h * 33) ^ c.charCodeAt(0)) >>> 0;
  const name = 'css-' + h.toString(36) + (h % 7);
  if (!document.getElementById(name)) {
    const s = document.createElement('style');
    s.id = name;
    s.textContent = `.${name}{${style}}`;
    document.head.appendChild(s);
  }
  return name;
}

// the router's scroll restoration: back to the top ~50 ms after every route change
function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    const t = setTimeout(() => window.scrollTo(0, 0), 50);
    return () => clearTimeout(t);
  }, [pathname]);
  return null;
}

function Nav() {
  const navigate = useNavigate();
  return (
    <nav className={css('display:flex;gap:16px;padding:8px;background:#234;')}>
      <Link to="/" className={css('color:#fff;')}>Orchard</Link>
      <Link to="/items" data-testid="nav-items" className={css('color:#fff;font-weight:bold;')}>Browse items</Link>
      <button aria-label="Open search" onClick={() => navigate('/search')} className={css('margin-left:auto;')}>&#128269;</button>
    </nav>
  );
}

function Home() {
  return <main><h1>Welcome to Orchard</h1><p>Fresh fruit, delivered.</p></main>;
}

// window-scrolled list: a spacer as tall as every row, and only the rows in view rendered
function Items() {
  const [top, setTop] = useState(0);
  useEffect(() => {
    const on = () => setTop(window.scrollY);
    window.addEventListener('scroll', on, { passive: true });
    return () => window.removeEventListener('scroll', on);
  }, []);
  const first = Math.max(0, Math.floor(top / ROW) - 5);
  const rows = [];
  for (let r = first; r < Math.min(LISTED.length, first + 40); r++)
    rows.push(
      <div key={LISTED[r]} className={css('position:absolute;left:0;right:0;height:40px;')} style={{ top: r * ROW }}>
        <Link to={`/items/${LISTED[r]}`}>Item {LISTED[r]}</Link>
      </div>,
    );
  return (
    <main>
      <h1>All items</h1>
      <div role="list" style={{ position: 'relative', height: LISTED.length * ROW }}>{rows}</div>
    </main>
  );
}

// the item's data from the site's API (catalogue.mjs, written by build.mjs): loading, the item, or
// missing — its request answered 404 and the page says so, as a real SPA's route does
function useItem(id) {
  const [state, setState] = useState({ id, item: null });
  useEffect(() => {
    let live = true;
    fetch(`/spa-react/api/items/${encodeURIComponent(id)}.json`)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((item) => live && setState({ id, item }), () => live && setState({ id, item: false }));
    return () => { live = false; };
  }, [id]);
  return state.id === id ? state.item : null;
}

// a transparent backdrop for 400 ms when the pointer comes onto the button (a menu closing, a ripple):
// what Playwright's click meets first there is the backdrop, which it stops and then tries again
function Item() {
  const { id } = useParams();
  const item = useItem(id);
  const addId = useId();
  const [busy, setBusy] = useState(false);
  const [added, setAdded] = useState(false);
  const enter = () => {
    if (busy) return;
    setBusy(true);
    setTimeout(() => setBusy(false), 400);
  };
  if (item === null)
    return <main><p className="loading" aria-busy="true">Loading…</p></main>;
  if (item === false)
    return (
      <main>
        <h1>Sorry, we couldn’t find it</h1>
        <p>Item {id} may have been taken off the shelves.</p>
        <Link to="/items">Back to all items</Link>
      </main>
    );
  return (
    <main>
      <h1>{item.name}</h1>
      <p>{item.fruit}, {item.price}</p>
      <button id={`${addId}-add`} data-testid="add-to-list" onMouseEnter={enter} onClick={() => setAdded(true)}
        className={css('padding:8px 16px;')}>Add to list</button>
      {added && <p role="status">Added item {id} to your list</p>}
      {busy && <div className={css('position:fixed;inset:0;')} />}
    </main>
  );
}

function Autocomplete({ label, options, onPick }) {
  const id = useId();
  const [text, setText] = useState('');
  const shown = text ? options.filter((o) => o.toLowerCase().startsWith(text.toLowerCase())) : [];
  return (
    <div className={css('position:relative;width:300px;')}>
      <label htmlFor={id}>{label}</label>
      <input id={id} role="combobox" aria-expanded={shown.length > 0} aria-controls={`${id}-listbox`}
        value={text} onChange={(e) => setText(e.target.value)} className={css('width:100%;')} />
      {shown.length > 0 && (
        <ul id={`${id}-listbox`} role="listbox" className={css('list-style:none;margin:0;padding:0;border:1px solid #999;')}>
          {shown.map((o, i) => (
            <li key={o} id={`${id}-option-${i}`} role="option" aria-selected="false" onClick={() => { setText(o); onPick(o); }}
              className={css('padding:4px;cursor:pointer;')}>{o}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Search() {
  const [picked, setPicked] = useState('');
  return (
    <main>
      <h1>Find a fruit</h1>
      <Autocomplete label="Fruit" options={FRUITS} onPick={setPicked} />
      {picked && <p data-testid="picked">You picked {picked}</p>}
    </main>
  );
}

function App() {
  return (
    <BrowserRouter basename="/spa-react">
      <ScrollToTop />
      <Nav />
      <Routes>
        <Route path="/items" element={<Items />} />
        <Route path="/items/:id" element={<Item />} />
        <Route path="/search" element={<Search />} />
        <Route path="*" element={<Home />} />
      </Routes>
    </BrowserRouter>
  );
}

createRoot(document.getElementById('root')).render(<App />);
