#!/usr/bin/env bash
# quickstart.sh — the README's two commands: set up a fresh Debian 12 machine and
#   demo : build keynode and run its main job on the embedded default
#   test : build twice (-Werror; ASan+UBSan) and run the whole test suite in each
# Installs missing apt packages itself; builds land in build/ under the checkout.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
shared=${KN_SHARED_DIR:-$(cd "$here/.." && pwd)/shared}
jobs=$(nproc 2>/dev/null || echo 2)
test_jobs=$("$here/deploy/test-jobs.sh") # one test more than the cores at once: they mostly wait

packages=(build-essential cmake pkg-config libwebsockets-dev libcurl4-openssl-dev libssl-dev libpcre2-dev
  libyaml-dev libpq-dev libjansson-dev libcmocka-dev libstemmer-dev postgresql chromium clang openssl
  libclang-rt-14-dev libfuzzer-14-dev curl jq wrk python3
  python3-selenium chromium-driver) # the last line: `keynode run`'s Selenium agent (tests/integration/run.sh)
# the real web applications of tests/realapps (tests/integration/realapps.sh), served by PHP's built-in server
packages+=(dokuwiki php-cli php-sqlite3 wordpress wordpress-theme-twentytwentythree
  wordpress-theme-twentytwentytwo mariadb-server php-mysql)  # WordPress on a private MariaDB (no SQLite drop-in in Debian)
packages+=(wordnet-base)  # the product-type rule of the purchase reward: WordNet's noun index (keynodes/README.md)
packages+=(chromium-headless-shell)  # `keynode run`'s default browser when installed: starts in about half the time (services/runner)
packages+=(nginx-light socat)  # the load balancer and the CDP forwarder of the multi-host test (tests/integration/multihost.sh)

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # Node.js may come from elsewhere than Debian (this machine kind ships v20 with npm 11):
  # install Debian's only when there is none
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build() { # build DIR [cmake options…]
  local dir=$1; shift
  cmake -S "$here" -B "$dir" -DKN_SHARED_DIR="$shared" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs"
}

case "${1:-}" in
demo)
  install_packages
  build build/release -DCMAKE_BUILD_TYPE=Release -DKN_TESTS=OFF
  kn=build/release/services/cli/keynode
  tasks="$shared/data/mind2web-live/mind2web-live_test_20241024.json"
  echo "== keynode validate: the Mind2Web-Live test split, as published"
  "$kn" validate "$tasks"
  echo
  echo "== keynode score: the bundled example runs against the Mind2Web-Live test tasks"
  "$kn" score --tasks "$tasks" --runs tests/data/runs/m2w-test
  echo
  # last, as on a terminal it keeps the service and its dashboard up until Ctrl-C
  deploy/demo.sh "$kn"
  ;;
test)
  install_packages
  echo "== build 1/2: -Werror" >&2
  build build/werror -DKN_WERROR=ON
  ctest --test-dir build/werror --output-on-failure -j"$test_jobs"
  echo "== build 2/2: AddressSanitizer + UndefinedBehaviorSanitizer" >&2
  build build/asan -DKN_WERROR=ON -DKN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/asan --output-on-failure -j"$test_jobs"
  echo "quickstart: all tests passed in both builds" >&2
  ;;
*)
  echo "usage: deploy/quickstart.sh demo|test" >&2
  exit 2
  ;;
esac
