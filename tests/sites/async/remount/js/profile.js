// profile.js — a framework-style mount: the server-rendered form is inert (its button does nothing yet);
// once the profile is fetched (data/profile.json) the app renders the form again, 200 ms later, as new
// nodes that replace the old ones (what was typed into the old field is gone) and wires "Save profile",
// which submits the form (GET saved.html?nickname=…&club=…).
(function () {
  var root = document.getElementById('root');

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  function field(f) {
    return '<label for="' + f.name + '">' + esc(f.label) + '</label><input id="' + f.name + '" name="' + f.name +
      '" autocomplete="off" value="' + esc(f.value) + '">';
  }

  fetch('/remount/data/profile.json', { cache: 'no-store' })
    .then(function (r) { return r.json(); })
    .then(function (p) {
      setTimeout(function () {
        var form = document.createElement('form');
        form.id = 'profile';
        form.action = '/remount/saved.html';
        form.method = 'get';
        form.innerHTML = '<h1>Your profile</h1>' + p.fields.map(field).join('') +
          '<p><button type="submit" id="save" class="btn">Save profile</button></p>';
        root.replaceChild(form, document.getElementById('profile'));
      }, 200);
    });
})();
