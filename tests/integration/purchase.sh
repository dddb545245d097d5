#!/usr/bin/env bash
# purchase.sh — WebShop's graded purchase reward live: real headless Chromium,
# `keynode sites` serving tests/sites (Ridgeline Market, /market/), `keynode watch` on the purchase
# tasks of tests/data/purchase/market.yaml, and a Playwright agent (agents/market.mjs) that picks a
# product, a colour and a size, then buys (or not; or buys, then leaves for the index: the read
# happens at the buy click). Each run's reward must equal the hand-worked fraction
# (keynodes/README.md "Purchase reward"):
#   shoe:   type "trail running shoe", attributes waterproof + lightweight, colour blue, size 9,
#           price ≤ 60 → denominator 2 + 2 + 1 = 5
#   jacket: type "lightweight rain jacket for hiking trips" (5 nouns), waterproof + packable, navy,
#           m, price ≤ 80 → denominator 5; "Hiking Boot Classic" shares 1 of 5 → r_type 0.5
#   goal.py's text and option rules, at the end
#
#   tests/integration/purchase.sh KEYNODE_BIN REPO_DIR
#
# ctest: integration.purchase ARGS=keynode,repo TIMEOUT=300
set -u -o pipefail
kn=${1:?usage: purchase.sh KEYNODE_BIN REPO_DIR}
repo=$(cd "${2:?usage: purchase.sh KEYNODE_BIN REPO_DIR}" && pwd)
here=$repo/tests/integration
. "$here/lib.sh"
kn_lib_init purchase

command -v jq >/dev/null 2>&1 || { kn_fail "jq not found"; kn_finish; }
command -v node >/dev/null 2>&1 || { kn_fail "node not found"; kn_finish; }
"$here/node/ensure.sh" || { kn_fail "playwright-core could not be installed"; kn_finish; }

kn_sites_start "$kn" "$repo/tests/sites" "$tmp/sites.log" || kn_finish
base=http://127.0.0.1:$port
kn_task_at_site "$repo/tests/data/purchase/market.yaml" "$tmp/market.yaml" "$port"
tasks=$tmp/market.yaml

# one browser for every run (each agent starts with a goto, each watch is a run of its own)
kn_chromium_start "$tmp" || kn_finish

# purchase NAME TASK MODE WANT PARTS [STEPS] — the agent, `keynode watch` (a purchase is the 5th step:
# goto, product, colour, size, buy; fewer when the agent leaves an option alone; a run without one
# ends after 5 s idle: on a loaded machine a first page load can take over 2 s); WANT is the reward
# as a jq expression (a fraction), PARTS a jq test of .reward_parts
purchase() {
  local name=$1 task=$2 mode=$3 want=$4 parts=$5 steps=${6:-5} dir=$tmp/$1
  kn_watch_scenario "$dir" --go "$dir/marks" --no-trajectory \
    -- --browser "$cdp" --tasks "$tasks" --task "$task" --until "steps:$steps" --until idle:5 --run-id "$name" \
    -- node "$here/agents/market.mjs" "$cdp" "$base" "$dir/marks" "$mode" || return 1
  [ "$kn_agent_rc" = 0 ] || kn_fail "$name: agent failed: $(tail -3 "$dir/agent.log")"
  if jq -e "((.reward - ($want)) | fabs) < 1e-9 and (.reward_parts | $parts)" "$dir/result.json" \
       >/dev/null 2>&1; then
    kn_ok "$name ($mode): reward $want"
  else
    kn_fail "$name ($mode): want reward $want and $parts — result: $(jq -c \
      '{reward, reward_parts, reward_error}' "$dir/result.json" 2>/dev/null || head -c 300 \
      "$dir/result.json") — log: $(tail -3 "$dir/watch.err")"
  fi
}

# the right product, options and price: 5/5
purchase shoe-right market-shoe 1:blue:9:buy 1 '.purchased and .type == 1 and .price == 1'
# wrong colour: 4/5; both options wrong: 3/5
purchase shoe-colour market-shoe 1:black:9:buy 4/5 '.options_met == 1 and .option == 0.5'
purchase shoe-options market-shoe 1:red:10:buy 3/5 '.options_met == 0 and .attributes_met == 2'
# a shoe without "waterproof": 4/5; and also the wrong options: 2/5
purchase shoe-lite market-shoe 2:blue:9:buy 4/5 '.attributes_met == 1 and .attribute == 0.5'
purchase shoe-lite-wrong market-shoe 2:grey:10:buy 2/5 '.attributes_met == 1 and .options_met == 0'
# over budget ($79 > $60): 4/5
purchase shoe-budget market-shoe 3:blue:9:buy 4/5 '.price == 0 and .price_read == 79'
# a boot: no word of the type in its title, r_type 0
purchase shoe-boot market-shoe 4:black:9:buy 0 '.type == 0 and .purchased'
# bought, then back to the index: what was bought is read at the click (the last page is the index)
purchase shoe-leave market-shoe 1:blue:9:leave 1 '.purchased and .type == 1' 6
# no purchase: the agent chose everything right but never clicked #buy
purchase shoe-none market-shoe 1:blue:9:look 0 '(.purchased | not) and .type == 0'
# jacket: "packable" met through the title, navy + m, $75 ≤ $80: 1
purchase jacket-right market-jacket 5:navy:m:buy 1 '.attributes_met == 2 and .title_score > 0.3'
purchase jacket-colour market-jacket 5:red:m:buy 4/5 '.options_met == 1'
purchase jacket-size market-jacket 5:navy:s:buy 4/5 '.options_met == 1 and .price == 1'
# the boot for the jacket: 1 of 5 type nouns (r_type 0.5), waterproof only, over budget:
# (1 + 0 + 0) / 5 × 0.5 = 1/10
purchase jacket-boot market-jacket 4:brown:10:buy 1/10 '.type == 0.5 and .attributes_met == 1'
# socks: no type word, r_type 0
purchase jacket-socks market-jacket 6:white:m:buy 0 '.type == 0'
# goal.py's rules (denominator 4 + 2 + 1 = 7 for the ramekin): "crème brûlée" in the
# title "CRÈME BRÛLÉE …" (Python's lower()), "water resistant" against "water–resistant" (an en
# dash separates), "stainless steel" over two bullet points, "bpa free" in the description, a type
# of accented words: all met, 1
purchase ramekin-right market-ramekin '7:blue:1 pack:buy' 1 \
  '.attributes_met == 4 and .options_met == 2 and .title_score == 1'
# the bullet list read whole ("#bullets", one text, a line a point): "stainless steel" over two points
# still met, 1 (6/7 if the line break stood between the words)
purchase ramekin-list market-ramekin-list '7:blue:1 pack:buy' 1 '.attributes_met == 4 and .options_met == 2'
# the pre-checked blue and the pre-selected "1 pack" untouched: no option chosen, 5/7
purchase ramekin-untouched market-ramekin '7:-:-:buy' 5/7 '.options_met == 0 and .price == 1' 3
# white chosen, the quantity select left at "1 pack": 5/7
purchase ramekin-white market-ramekin '7:white:-:buy' 5/7 '.options_met == 0' 4
# "fast charngig" against "fast charging": difflib's 85 is no match (Indel's 92 was), 1/2
purchase charger market-charger '8:-:-:buy' 1/2 '.attributes_met == 0 and .price == 1' 3
# "waterproof jacket" has one noun, "jacket": "Waterproof Hiking Boot" is another type, 0
purchase jacket-for-boot market-waterproof-jacket '9:-:-:buy' 0 '.type == 0 and .title_score == 0' 3
kn_stop "$cpid"
kn_finish
