// Page analytics: none on this site (softpage-analytics/ replaces this file with a call that always fails).
