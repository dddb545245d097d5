/* note.js — a Trailnotes note page: the title of ?id=N and the edit (or view) link to its editor. */
(function () {
	'use strict';
	var id = new URLSearchParams(location.search).get('id') || '1';
	var titles = {'1': 'Trail budget 2026', '2': 'Trail budget 2025', '3': 'Packing list', '4': 'Permit numbers'};
	document.getElementById('note-title').textContent = titles[id] || 'Note';
	var link = document.getElementById('edit-link') || document.getElementById('view-source');
	link.setAttribute('href', '/notes/edit.html?id=' + id);
})();
