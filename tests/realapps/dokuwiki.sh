#!/usr/bin/env bash
# dokuwiki.sh — a private DokuWiki from Debian's `dokuwiki` package, for the real-application tests
# (tests/integration/realapps.sh): copied into DIR (the package's files are only read, nothing under
# /usr/share, /etc or /var/lib is changed), configured to keep its pages in DIR, seeded with a small
# "Trailhead Outfitters" staff wiki, and served by PHP's built-in server on 127.0.0.1.
#
#   tests/realapps/dokuwiki.sh install DIR          copy + configure + seed (idempotent: a fresh copy each time)
#   tests/realapps/dokuwiki.sh start DIR PORT      php -S 127.0.0.1:PORT in the background; prints its pid
#   tests/realapps/dokuwiki.sh theme DIR           a theme change: other colours, fonts and widths, no sidebar
#   tests/realapps/dokuwiki.sh disable-search DIR  a feature disabled by configuration (disableactions=search)
#   tests/realapps/dokuwiki.sh remove-page DIR     a page removed (trailhead:tent_care)
#   tests/realapps/dokuwiki.sh theme-relabel DIR   a theme change that renames a link: the theme's colours and
#                                                  widths, and the page tools' "Edit this page" shortened to
#                                                  "Edit" (a language string override, conf/lang/en/lang.php);
#                                                  the configuration (ACL) is left as it is
#   tests/realapps/dokuwiki.sh reset DIR           undo the changes above (and the ACL's)
#   tests/realapps/dokuwiki.sh acl DIR             DokuWiki's ACL on (useacl, authplain, acl.auth.php):
#                                                  every visitor (@ALL) may edit, as Debian's default ACL says
#   tests/realapps/dokuwiki.sh acl-readonly DIR    the ACL rule "trailhead:returns @ALL 1": the Returns page
#                                                  read-only for visitors (a page-level rule wins over "*")
# Needs: dokuwiki, php-cli (deploy/quickstart.sh installs them). Exit 0, or 1 with a line saying why.
set -eu -o pipefail
cmd=${1:?usage: dokuwiki.sh install|start|theme|theme-relabel|disable-search|remove-page|reset|acl|acl-readonly DIR [PORT]}
dir=${2:?usage: dokuwiki.sh $cmd DIR}
src=/usr/share/dokuwiki
conf=$dir/wiki/conf

die() { echo "dokuwiki.sh: $*"; exit 1; }
tent_care() {
  cat >"$dir/data/pages/trailhead/tent_care.txt" <<'TXT'
====== Tent care ======
Dry every tent before it goes back on the shelf. Seam sealer is in the back room.
TXT
}

case $cmd in
install)
  [ -f "$src/doku.php" ] || die "no DokuWiki at $src (apt-get install dokuwiki)"
  command -v php >/dev/null || die "no php (apt-get install php-cli)"
  rm -rf "$dir/wiki" "$dir/data"
  mkdir -p "$dir"
  cp -rL "$src" "$dir/wiki"                       # lib/plugins and lib/tpl are symlinks into /var/lib
  rm -f "$dir/wiki/inc/preload.php"               # Debian's preload points DOKU_CONF at /etc/dokuwiki
  rm -rf "$conf" && mkdir -p "$conf"
  cp -L /etc/dokuwiki/*.php /etc/dokuwiki/*.conf /etc/dokuwiki/*.css /etc/dokuwiki/*.json "$conf"/ 2>/dev/null || true
  cp /etc/dokuwiki/acl.auth.php.dist "$conf/acl.auth.php"
  cp /etc/dokuwiki/users.auth.php.dist "$conf/users.auth.php"
  cp -r /var/lib/dokuwiki/data "$dir/data"
  cat >"$conf/local.php" <<PHP
<?php
\$conf['title'] = 'Trailhead Staff Wiki';
\$conf['savedir'] = '$dir/data';
\$conf['useacl'] = 0;
\$conf['userewrite'] = 0;
\$conf['sidebar'] = 'sidebar';
\$conf['lang'] = 'en';
PHP
  mkdir -p "$dir/data/pages/trailhead"
  cat >"$dir/data/pages/start.txt" <<'TXT'
====== Trailhead Staff Wiki ======
Welcome. Guides for the shop floor: [[trailhead:tent_care|Tent care]], [[trailhead:boot_fitting|Boot fitting]], [[trailhead:returns|Returns]].
TXT
  cat >"$dir/data/pages/sidebar.txt" <<'TXT'
  * [[start|Home]]
  * [[trailhead:returns|Returns]]
TXT
  tent_care
  cat >"$dir/data/pages/trailhead/boot_fitting.txt" <<'TXT'
====== Boot fitting ======
Measure both feet standing; leave a thumb's width at the toe. Tent pegs are not boots.
TXT
  cat >"$dir/data/pages/trailhead/returns.txt" <<'TXT'
====== Returns ======
Unused gear within 30 days, with the receipt.
TXT
  # the search index DokuWiki would build on page views, built now so the first search finds the pages
  php "$dir/wiki/bin/indexer.php" -q >/dev/null 2>&1 || die "indexer failed"
  ;;
start)
  port=${3:?usage: dokuwiki.sh start DIR PORT}
  # no opcache: it revalidates a changed file only every 2 s, so a configuration rewritten at the same
  # path (theme, then disable-search) could be served from the old compiled copy
  php -d opcache.enable=0 -S "127.0.0.1:$port" -t "$dir/wiki" >"$dir/php.log" 2>&1 &
  echo $!
  ;;
theme|theme-relabel)
  mkdir -p "$conf/tpl/dokuwiki"
  cat >"$conf/tpl/dokuwiki/style.ini" <<'INI'
[replacements]
__text__           = "#1b1b2f"
__background__     = "#fdf6e3"
__link__           = "#8a2be2"
__site_width__     = "60em"
__sidebar_width__  = "12em"
INI
  if [ "$cmd" = theme-relabel ]; then
    mkdir -p "$conf/lang/en"
    printf "<?php\n\$lang['btn_edit'] = 'Edit';\n" >"$conf/lang/en/lang.php"
    rm -rf "$dir/data/cache"/*
    exit 0
  fi
  printf "<?php\n\$conf['sidebar'] = '';\n\$conf['title'] = 'Trailhead Staff Handbook';\n" >"$conf/local.protected.php"
  rm -rf "$dir/data/cache"/* ;;
disable-search)
  printf "<?php\n\$conf['disableactions'] = 'search';\n" >"$conf/local.protected.php"
  rm -rf "$dir/data/cache"/* ;;
remove-page)
  rm -f "$dir/data/pages/trailhead/tent_care.txt"
  php "$dir/wiki/bin/indexer.php" -q >/dev/null 2>&1 || true
  rm -rf "$dir/data/cache"/* ;;
acl)
  printf "<?php\n\$conf['useacl'] = 1;\n\$conf['authtype'] = 'authplain';\n\$conf['superuser'] = '@admin';\n" >"$conf/local.protected.php"
  printf '*\t@ALL\t8\n' >"$conf/acl.auth.php"
  rm -rf "$dir/data/cache"/* ;;
acl-readonly)
  printf 'trailhead:returns\t@ALL\t1\n' >>"$conf/acl.auth.php"
  rm -rf "$dir/data/cache"/* ;;
reset)
  rm -rf "$conf/tpl" "$conf/lang" "$conf/local.protected.php" "$dir/data/cache"/*
  tent_care
  php "$dir/wiki/bin/indexer.php" -q >/dev/null 2>&1 || die "indexer failed" ;;
*) die "unknown command $cmd" ;;
esac
