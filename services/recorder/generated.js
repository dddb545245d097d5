  /* generated.js: the one rule set that says whether an id, a class or an attribute name was made up
   * by a framework or a build (and so changes between builds, renders or visits) rather than written by
   * a person. A part of the recorder (recorder.parts: the selectors and hints it records never use such
   * a name); tests/integration/generated.test.mjs checks it table by table. Plain function
   * declarations: the same file is put in front of keynode's other page scripts with query.js
   * (page.parts, query_js.h): the replayer's fingerprint, healing candidates and repair proposals.
   *
   * What is recognised (the examples are the tables of the test):
   * - React useId in all its forms: `:r1:`, `:R2dm:` (18), `\u00abr1\u00bb` (19.0, guillemets), `_r_12_` (19.1+), and what
   *   libraries build on it (Radix `radix-:r1:`, MUI `:r5:`, Headless UI `headlessui-menu-button-:r1:`);
   * - counters behind a framework prefix: Ember `ember123`, Ext JS `ext-gen123` / `ext-comp-1001`,
   *   Angular `mat-input-3`, `cdk-overlay-12`, `ng-tns-c12-3`, MUI `mui-12345`, Headless UI
   *   `headlessui-menu-button-3`, Vue `v-0-1`, and any run of 3+ digits, UUIDs, long mixed tokens;
   * - hashed classes: emotion `css-1x2y3z`, styled-components `sc-abc123` and its 6-letter hashes,
   *   CSS modules `Button_root__x1y2z` / `_a1b2c3`, Svelte `svelte-xyz123`, JSS `jss12`;
   * - scoping attributes: Vue `data-v-7ba5bd90`, Angular `_ngcontent-abc-c12`, `_nghost-...`. */

  var KN_GEN_PREFIX = /^(ember|ext-gen|ext-comp|ext-|yui|mui-|react-|radix-|headlessui-|ng-|cdk-|mat-|j_id|gwt-|rc-|el-id-|uid-|v-|__)/i;

  /* A token with 2+ digits among letters (x1y2z, 1x2y3z, a1b2c3): what a hash looks like. */
  function knHashish(tok) {
    if (!/^[0-9a-z]{5,}$/i.test(tok) || !/[a-z]/i.test(tok)) return false;
    return (tok.match(/[0-9]/g) || []).length >= 2;
  }

  /* True when the element id was generated. */
  function knGeneratedId(id) {
    if (typeof id !== 'string' || !id) return false;
    if (id.length > 64 || /[\s:\u00ab\u00bb]/.test(id)) return true; /* useId ":r1:", guillemets */
    if (/^_r_[0-9a-z]+_/i.test(id)) return true; /* useId "_r_12_", and ids built on it: "_r_1_-option-0" */
    if (/\d{3,}/.test(id)) return true; /* ember123, ext-gen1234, item-48213 */
    if (/[0-9a-f]{8}-[0-9a-f]{4}-/i.test(id)) return true; /* a UUID */
    if (/^[0-9a-z]{10,}$/i.test(id) && /\d/.test(id) && /[a-z]/i.test(id)) return true; /* a1b2c3d4e5 */
    if (KN_GEN_PREFIX.test(id) && /\d/.test(id)) return true; /* mat-input-3, headlessui-menu-button-3 */
    return false;
  }

  /* True when the class was generated: hashed by CSS-in-JS or CSS modules, or scoped by a framework. */
  function knGeneratedClass(c) {
    if (typeof c !== 'string' || !c) return false;
    if (/^(css|sc|svelte|jsx|tw)-[0-9a-z]+(-[a-z0-9]+)*$/i.test(c) && /\d/.test(c)) return true; /* css-1x2y3z */
    if (/^sc-[a-z]+$/i.test(c)) return true; /* styled-components' component class: sc-bdVaJa */
    if (/^[a-z][a-zA-Z]{4,7}$/.test(c) && (c.match(/[A-Z]/g) || []).length >= 3) return true; /* its hash: bZkfAO */
    if (/^_[0-9a-z]{5,}$/i.test(c) && /\d/.test(c)) return true; /* CSS modules: _a1b2c3 */
    var segs = c.split(/[-_]+/);
    if (segs.length > 1 && knHashish(segs[segs.length - 1])) return true; /* Button_root__x1y2z */
    if (/^(jss|ng-tns-)/.test(c) && /\d/.test(c)) return true; /* jss12, ng-tns-c12-3 */
    /* makeStyles-root-123; not a utility class's scale (bg-blue-500, hover:w-100) */
    if (/\d{3,}/.test(c) && c.indexOf(':') < 0 && !/-([1-9]0{1,2}|950)$/.test(c)) return true;
    return false;
  }

  /* True when the attribute's name itself is generated (a framework's style scoping). */
  function knGeneratedAttr(name) {
    return typeof name === 'string' && /^(data-v-[0-9a-f]{6,}|_ngcontent-|_nghost-|data-svelte-h)/i.test(name);
  }
