#!/usr/bin/env bash
# wordpress.sh — a private WordPress from Debian's `wordpress` package on a private MariaDB (a throwaway
# datadir, Unix socket only, no network), for tests/integration/realapps.sh. Nothing under /usr/share, /etc or
# /var/lib is changed: WordPress is copied into DIR with its own wp-config.php, the database lives in DIR/db.
#
#   tests/realapps/wordpress.sh install DIR PORT   MariaDB started, WordPress copied, installed and seeded
#                                                  (a blog with three posts; plain ?p=N permalinks)
#   tests/realapps/wordpress.sh start DIR PORT     php -S 127.0.0.1:PORT in the background; prints its pid
#   tests/realapps/wordpress.sh theme DIR          a theme change: Twenty Twenty-Three → Twenty Twenty-Two
#   tests/realapps/wordpress.sh static-front DIR   a feature disabled by configuration: the front page shows a
#                                                  static page, no longer the latest posts
#   tests/realapps/wordpress.sh remove-post DIR    the post of the task moved to the trash
#   tests/realapps/wordpress.sh rename-post DIR    the post of the task renamed ("Pitching a tent in a storm"),
#                                                  its link (?p=N) unchanged
#   tests/realapps/wordpress.sh reset DIR          undo the four changes above
#   tests/realapps/wordpress.sh stop DIR           stop MariaDB
# Needs: wordpress, wordpress-theme-twentytwentythree, wordpress-theme-twentytwentytwo, mariadb-server,
# php-cli, php-mysql (deploy/quickstart.sh installs them). Exit 0, or 1 with a line saying why.
set -eu -o pipefail
cmd=${1:?usage: wordpress.sh install|start|theme|static-front|remove-post|rename-post|reset|stop DIR [PORT]}
dir=${2:?usage: wordpress.sh $cmd DIR}
sock=$dir/db/mysql.sock # the datadir is the only folder the mysql user may write
die() { echo "wordpress.sh: $*"; exit 1; }
# wp PHP — run PHP with WordPress loaded (as a request for http://127.0.0.1:PORT)
wp() { (cd "$dir/wp" && php -d display_errors=stderr -r 'define("WP_INSTALLING", getenv("KN_WP_INSTALLING") === "1"); $_SERVER["HTTP_HOST"] = "127.0.0.1"; require "wp-load.php"; '"$1"); }

case $cmd in
install)
  port=${3:?usage: wordpress.sh install DIR PORT}
  [ -f /usr/share/wordpress/wp-load.php ] || die "no WordPress at /usr/share/wordpress (apt-get install wordpress)"
  [ -d /usr/share/wordpress/wp-content/themes/twentytwentythree ] || die "no Twenty Twenty-Three theme (apt-get install wordpress-theme-twentytwentythree)"
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || die "no mariadbd (apt-get install mariadb-server)"
  php -r 'exit(extension_loaded("mysqli") ? 0 : 1);' || die "no PHP mysqli (apt-get install php-mysql)"
  rm -rf "$dir/wp" "$dir/db" && mkdir -p "$dir/db"
  chown mysql:mysql "$dir/db"
  mariadb-install-db --no-defaults --datadir="$dir/db" --user=mysql --auth-root-authentication-method=socket \
    --skip-test-db >"$dir/db-install.log" 2>&1 || die "mariadb-install-db: $(tail -2 "$dir/db-install.log")"
  /usr/sbin/mariadbd --no-defaults --datadir="$dir/db" --socket="$sock" --skip-networking --user=mysql \
    --pid-file="$dir/db/mysql.pid" --log-error="$dir/db/mysql.err" --innodb-buffer-pool-size=16M >/dev/null 2>&1 &
  for _ in $(seq 1 200); do [ -S "$sock" ] && mariadb -S "$sock" -u root -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.05; done
  mariadb -S "$sock" -u root -e "CREATE DATABASE wp; CREATE USER wp@localhost IDENTIFIED BY 'wp'; GRANT ALL ON wp.* TO wp@localhost;" ||
    die "MariaDB did not start: $(tail -2 "$dir/db/mysql.err")"
  cp -rL /usr/share/wordpress "$dir/wp"
  cat >"$dir/wp/wp-config.php" <<PHP
<?php
define('DB_NAME', 'wp'); define('DB_USER', 'wp'); define('DB_PASSWORD', 'wp');
define('DB_HOST', 'localhost:$sock'); define('DB_CHARSET', 'utf8mb4'); define('DB_COLLATE', '');
define('WP_HOME', 'http://127.0.0.1:$port'); define('WP_SITEURL', 'http://127.0.0.1:$port');
define('WP_CONTENT_DIR', '$dir/wp/wp-content');
define('AUTOMATIC_UPDATER_DISABLED', true); define('WP_HTTP_BLOCK_EXTERNAL', true); define('DISABLE_WP_CRON', true);
\$table_prefix = 'wp_';
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
PHP
  KN_WP_INSTALLING=1 wp 'require_once ABSPATH . "wp-admin/includes/upgrade.php";
    wp_install("Trailhead Journal", "admin", "admin@example.invalid", 1, "", "admin-password");
    update_option("permalink_structure", ""); switch_theme("twentytwentythree");
    wp_delete_post(1, true); wp_delete_post(2, true);
    $a = wp_insert_post(["post_title" => "Choosing a sleeping bag", "post_content" => "Comfort ratings explained.", "post_status" => "publish", "post_date" => "2024-03-01 10:00:00"]);
    $b = wp_insert_post(["post_title" => "Pitching a tent in the rain", "post_content" => "Fly first, then the inner tent.", "post_status" => "publish", "post_date" => "2024-03-02 10:00:00"]);
    $c = wp_insert_post(["post_title" => "Boot care after a muddy hike", "post_content" => "Rinse, dry slowly, wax.", "post_status" => "publish", "post_date" => "2024-03-03 10:00:00"]);
    $p = wp_insert_post(["post_title" => "Welcome", "post_content" => "Welcome to the Trailhead Journal.", "post_status" => "publish", "post_type" => "page"]);
    update_option("kn_task_post", $b); update_option("kn_welcome_page", $p);
    echo "post $b page $p\n";' >"$dir/seed.log" 2>&1 || die "install: $(tail -3 "$dir/seed.log")"
  ;;
start)
  port=${3:?usage: wordpress.sh start DIR PORT}
  # no opcache: it revalidates a changed file only every 2 s, so a configuration rewritten at the same
  # path (theme, then disable-search) could be served from the old compiled copy
  php -d opcache.enable=0 -S "127.0.0.1:$port" -t "$dir/wp" >"$dir/php.log" 2>&1 &
  echo $!
  ;;
theme) wp 'switch_theme("twentytwentytwo");' ;;
static-front) wp 'update_option("show_on_front", "page"); update_option("page_on_front", get_option("kn_welcome_page"));' ;;
remove-post) wp 'wp_trash_post(get_option("kn_task_post"));' ;;
rename-post) wp 'wp_update_post(["ID" => get_option("kn_task_post"), "post_title" => "Pitching a tent in a storm"]);' ;;
reset) wp 'switch_theme("twentytwentythree"); update_option("show_on_front", "posts"); wp_untrash_post(get_option("kn_task_post")); wp_publish_post(get_option("kn_task_post"));
  wp_update_post(["ID" => get_option("kn_task_post"), "post_title" => "Pitching a tent in the rain"]);' ;;
stop)
  [ -f "$dir/db/mysql.pid" ] && kill "$(cat "$dir/db/mysql.pid")" 2>/dev/null
  for _ in $(seq 1 100); do [ -S "$sock" ] || break; sleep 0.1; done ;;
*) die "unknown command $cmd" ;;
esac
