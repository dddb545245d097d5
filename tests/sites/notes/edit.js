/* edit.js — the Trailnotes editor: the note id of ?id=N into the form. */
document.getElementById('note-id').value = new URLSearchParams(location.search).get('id') || '1';
