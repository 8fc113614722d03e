#!/usr/bin/env bash
# make test-galera: starts a three-node Galera cluster (scripts/galera.sh), runs the store suite
# through one of its nodes (test/store, test/records, the indexer's holes, sessions) and the
# cluster's own tests (test/galera: one app process per node, conflicts, a node killed), then
# stops the cluster. Ends with "N passed, M failed" and the time it took. The last leg of make test
# (scripts/test.sh) unless TEST_GALERA=off.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/galera.sh start || exit 1
trap 'bash scripts/galera.sh stop' EXIT
GALERA_URLS=$(bash scripts/galera.sh urls)
export GALERA_URLS
# The suite's tests write through node 2: its auto_increment_offset is 2 of 3, so every sequence
# has holes, and the other nodes apply its writes as a cluster does.
export MARIADB_URL=${GALERA_STORE_URL:-$(echo "$GALERA_URLS" | cut -d' ' -f2)}
export WORKERS=1
passed=0; failed=0; status=0
run() {
  local out; out=$(mktemp)
  TEST_STORE=mariadb npx mocha --no-config --require tsx/cjs --extension ts --timeout 180000 "$@" 2>&1 | tee "$out"
  local rc=${PIPESTATUS[0]} p f
  p=$(grep -Eo '^ *[0-9]+ passing' "$out" | grep -Eo '[0-9]+' | tail -1)
  f=$(grep -Eo '^ *[0-9]+ failing' "$out" | grep -Eo '[0-9]+' | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ]; then status=1; [ -z "$f" ] && failed=$((failed + 1)); fi
  rm -f "$out"
}
echo "=== the store suite through $MARIADB_URL ==="
run test/store/*.test.ts test/records/*.test.ts test/records/trees/*.test.ts --ignore test/records/trees/trees-large.test.ts \
  test/search/indexer-holes.test.ts test/search/search.test.ts test/access/sessions.test.ts test/http/health.test.ts \
  test/domain/webhooks.test.ts
echo "=== the cluster's own tests ==="
run test/galera/*.test.ts
echo "${passed} passed, ${failed} failed (make test-galera took $((SECONDS - started)) s, the cluster's start included)"
exit $status
