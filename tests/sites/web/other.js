// other.js — the URL of PATH on the other site of this server: 127.0.0.1 ↔ localhost, same port.
// Two sites, so Chromium's site isolation puts a frame of the other one in its own process.
function knOther(path) {
  var host = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return location.protocol + '//' + host + ':' + location.port + path;
}
function knFrame(parent, id, path, title, height) {
  var f = document.createElement('iframe');
  f.id = id;
  f.title = title;
  f.src = knOther(path);
  f.style.cssText = 'width:95%;height:' + (height || 260) + 'px;border:2px solid #888;margin:6px';
  parent.appendChild(f);
  return f;
}
