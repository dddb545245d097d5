#!/usr/bin/env bash
# deploy.sh DRIVER REPO — the deployment files of deploy/ are well-formed: every YAML parses (node +
# the `yaml` package, no warnings); the keynode configs they ship load with keynode's own loader
# (DRIVER = alerts_test config); compose services reference existing services; every Kubernetes
# object has apiVersion/kind/name, Deployments' selectors match their pod labels, Services select
# pods that exist, pods reference the ConfigMap/Secret that exist; `kubectl kustomize deploy/k8s`
# renders; the systemd units pass `systemd-analyze verify` without a warning; the Dockerfile has its
# three Debian 12 stages. `docker compose config` needs the compose plugin, absent here: not run.
#
# ctest: integration.deploy ARGS=target:alerts_test,repo TIMEOUT=300
set -u
drv=$1 repo=$2
. "$(dirname "$0")/lib.sh"
kn_lib_init deploy
d=$repo/deploy
for t in node kubectl systemd-analyze; do command -v $t >/dev/null || kn_fail "$t is not installed"; done
"$(dirname "$0")/node/ensure.sh" >"$tmp/ensure.log" 2>&1 || kn_fail "npm packages: $(tail -3 "$tmp/ensure.log")"

NODE_PATH=$(dirname "$0")/node/node_modules node - "$d" "$tmp" >"$tmp/yaml.out" 2>&1 <<'JS'
const fs = require('fs'), path = require('path'), YAML = require('yaml');
const [dir, tmp] = process.argv.slice(2);
let bad = 0;
const ok = (m) => console.log('ok   ' + m), fail = (m) => { console.log('FAIL ' + m); bad++; };
function docs(file) {
  const all = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'), { prettyErrors: true });
  for (const doc of all) {
    for (const e of [...doc.errors, ...doc.warnings]) fail(`${path.relative(dir, file)}: ${e.message}`);
  }
  return all.map((doc) => doc.toJS()).filter((x) => x != null);
}
const files = ['compose.yaml', 'keynode.compose.yaml', 'keynode.example.yaml',
  ...fs.readdirSync(path.join(dir, 'k8s')).filter((f) => f.endsWith('.yaml')).map((f) => 'k8s/' + f)];
const parsed = {};
for (const f of files) {
  const before = bad;
  parsed[f] = docs(path.join(dir, f));
  if (bad === before) ok(`${f} parses (${parsed[f].length} document(s))`);
}
// compose
const c = parsed['compose.yaml'][0];
for (const s of ['postgres', 'migrate', 'serve', 'lb', 'worker', 'browser'])
  c.services[s] ? ok(`compose: service ${s}`) : fail(`compose: no service ${s}`);
for (const [name, s] of Object.entries(c.services))
  for (const dep of Object.keys(s.depends_on || {}))
    if (!c.services[dep]) fail(`compose: ${name} depends on unknown ${dep}`);
if (!/worker.*--browser.*browser:9222/.test(JSON.stringify(c.services.worker.command))) fail('compose: worker not pointed at the browser pool');
// the load balancer: two serves behind it, its files exist, its fixed address in the subnet and trusted
(c.services.serve.deploy?.replicas ?? 1) >= 2 ? ok('compose: two serves') : fail('compose: one serve');
for (const v of c.services.lb?.volumes || [])
  fs.existsSync(path.join(dir, v.split(':')[0])) ? ok(`compose: lb mounts ${v.split(':')[0]}`) : fail(`compose: lb mounts missing ${v}`);
const lbip = c.services.lb?.networks?.default?.ipv4_address, subnet = c.networks?.default?.ipam?.config?.[0]?.subnet || '';
const kc = parsed['keynode.compose.yaml'][0];
lbip && subnet.startsWith(lbip.split('.').slice(0, 3).join('.') + '.') && (kc.http?.trusted_proxies || []).includes(lbip)
  ? ok(`compose: lb at ${lbip} in ${subnet}, a trusted proxy`) : fail(`compose: lb address ${lbip} / ${subnet} / trusted ${kc.http?.trusted_proxies}`);
c.services.serve.ports ? fail('compose: serve published past the lb') : ok('compose: only the lb is published');
// kubernetes
const objs = files.filter((f) => f.startsWith('k8s/') && !f.endsWith('kustomization.yaml')).flatMap((f) => parsed[f]);
const kinds = objs.map((o) => o.kind).sort().join(',');
kinds === 'ConfigMap,Deployment,Deployment,Deployment,Namespace,Secret,Service,Service'
  ? ok('k8s: objects ' + kinds) : fail('k8s: objects ' + kinds);
const deps = objs.filter((o) => o.kind === 'Deployment');
for (const o of objs) if (!o.apiVersion || !o.kind || !o.metadata || !o.metadata.name) fail('k8s: object without apiVersion/kind/name');
const has = (labels, sel) => Object.entries(sel).every(([k, v]) => labels && labels[k] === v);
for (const dp of deps) {
  const t = dp.spec.template;
  has(t.metadata.labels, dp.spec.selector.matchLabels) ? ok(`k8s: ${dp.metadata.name} selector matches its pods`)
    : fail(`k8s: ${dp.metadata.name} selector does not match its pods`);
  const cs = [...(t.spec.initContainers || []), ...t.spec.containers];
  for (const ctr of cs) {
    for (const ef of ctr.envFrom || []) if (ef.secretRef && !objs.some((o) => o.kind === 'Secret' && o.metadata.name === ef.secretRef.name)) fail(`k8s: ${ctr.name} uses missing Secret`);
    if (ctr.securityContext?.allowPrivilegeEscalation !== false) fail(`k8s: ${ctr.name} may escalate privileges`);
  }
  for (const v of t.spec.volumes || []) if (v.configMap && !objs.some((o) => o.kind === 'ConfigMap' && o.metadata.name === v.configMap.name)) fail(`k8s: ${dp.metadata.name} mounts missing ConfigMap`);
}
for (const s of objs.filter((o) => o.kind === 'Service'))
  deps.some((dp) => has(dp.spec.template.metadata.labels, s.spec.selector)) ? ok(`k8s: Service ${s.metadata.name} selects pods`)
    : fail(`k8s: Service ${s.metadata.name} selects no pods`);
const serve = deps.find((dp) => dp.metadata.name === 'keynode-serve');
serve && (serve.spec.template.spec.initContainers || []).some((i) => i.args[0] === 'migrate') ? ok('k8s: serve runs `keynode migrate` first')
  : fail('k8s: no migrate initContainer');
const cm = objs.find((o) => o.kind === 'ConfigMap');
fs.writeFileSync(path.join(tmp, 'k8s-keynode.yaml'), cm.data['keynode.yaml']);
process.exit(bad ? 1 : 0);
JS
rc=$?
cat "$tmp/yaml.out"
[ $rc = 0 ] && kn_ok "deploy YAML checks" || kn_fail "deploy YAML checks"

# the lb's nginx config as compose mounts it (the serves' name replaced by an address nginx -t resolves)
if command -v nginx >/dev/null; then
  mkdir -p "$tmp/nginx/logs" "$tmp/nginx/keynode"
  cp "$d/lb/keynode-proxy.conf" "$tmp/nginx/keynode/"
  sed -e 's/server serve:8080/server 127.0.0.1:8080/' -e "s|/etc/nginx/keynode/|$tmp/nginx/keynode/|" \
    -e 's/listen 8080;/listen 127.0.0.1:8080;/' "$d/lb/compose-lb.conf" >"$tmp/nginx/lb.conf"
  printf 'pid %s/nginx.pid;\nerror_log %s/logs/error.log;\nevents {}\nhttp { include %s/lb.conf; }\n' \
    "$tmp/nginx" "$tmp/nginx" "$tmp/nginx" >"$tmp/nginx/nginx.conf"
  out=$(nginx -t -p "$tmp/nginx" -e "$tmp/nginx/logs/error.log" -c "$tmp/nginx/nginx.conf" 2>&1) &&
    kn_ok "compose's lb config passes nginx -t" || kn_fail "nginx -t: $out"
else kn_fail "nginx is not installed"; fi

for f in "$d/keynode.example.yaml" "$d/keynode.compose.yaml" "$tmp/k8s-keynode.yaml"; do
  out=$(KEYNODE_DATABASE_URL= KEYNODE_API_TOKEN= "$drv" config "$f" 2>&1) && kn_ok "config loads: ${f##*/} ($out)" ||
    kn_fail "config ${f##*/}: $out"
done
# the checker itself rejects a broken config (a bad cron, with file:line)
printf 'schedules:\n  - {name: x, cron: "0 25 * * *"}\n' >"$tmp/bad.yaml"
out=$("$drv" config "$tmp/bad.yaml" 2>&1) && kn_fail "bad cron accepted" ||
  { [ "$out" = "$tmp/bad.yaml:2:21: schedules[0].cron: field 2 (hour): 25 out of range 0-23" ] &&
    kn_ok "bad cron rejected with file:line ($out)" || kn_fail "bad cron message: $out"; }

if kubectl kustomize "$d/k8s" >"$tmp/k8s.out" 2>"$tmp/k8s.err"; then
  [ "$(grep -c '^kind:' "$tmp/k8s.out")" = 8 ] && kn_ok "kubectl kustomize renders 8 objects" ||
    kn_fail "kustomize rendered $(grep -c '^kind:' "$tmp/k8s.out") objects"
else
  kn_fail "kubectl kustomize: $(tail -3 "$tmp/k8s.err")"
fi

# systemd: verify with the real binary path substituted (verify checks ExecStart exists)
mkdir -p "$tmp/units"
kn=$(dirname "$drv")/../../services/cli/keynode
[ -x "$kn" ] || kn=$(command -v true)
for u in keynode-serve.service keynode-worker@.service; do
  sed "s|/usr/local/bin/keynode|$kn|g" "$d/systemd/$u" >"$tmp/units/${u/@/@1}"
done
systemd-analyze verify "$tmp/units/keynode-serve.service" "$tmp/units/keynode-worker@1.service" >"$tmp/sd.out" 2>&1
if [ $? = 0 ] && [ ! -s "$tmp/sd.out" ]; then kn_ok "systemd-analyze verify: both units clean"
else kn_fail "systemd-analyze verify: $(head -5 "$tmp/sd.out")"; fi
grep -q '^NoNewPrivileges=yes' "$d/systemd/keynode-worker@.service" && grep -q '^ProtectSystem=strict' "$d/systemd/keynode-serve.service" &&
  kn_ok "units are hardened" || kn_fail "hardening options missing"

# Dockerfile: three stages on Debian 12, files it copies exist, the pool script parses
[ "$(grep -cE '^FROM debian:12-slim AS (build|runtime|browser)$' "$d/Dockerfile")" = 3 ] && kn_ok "Dockerfile: build, runtime, browser stages on debian:12" ||
  kn_fail "Dockerfile stages"
for f in $(sed -n 's/^COPY \(deploy\/[^ ]*\) .*/\1/p' "$d/Dockerfile"); do
  [ -f "$repo/$f" ] || kn_fail "Dockerfile copies missing $f"
done
sh -n "$d/browser/cdp-pool.sh" && kn_ok "cdp-pool.sh parses" || kn_fail "cdp-pool.sh syntax"
kn_finish
