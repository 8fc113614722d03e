# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
.PHONY: install generate check-generated check-deps lint build run test test-fast test-sqlite test-mariadb test-galera reindex indexer bench bench-large clean

NPM_STAMP := node_modules/.package-lock.json

install: $(NPM_STAMP)

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $(NPM_STAMP)

generate: install
	npx tsx scripts/generate.ts
	npx tsx scripts/openapi.ts

check-generated: install
	npx tsx scripts/check-generated.ts

# Regenerates only when the schemas changed since generated/ was written.
generated/registry.json: $(wildcard schemas/*.json) scripts/generate.ts | $(NPM_STAMP)
	npx tsx scripts/generate.ts
	npx tsx scripts/openapi.ts

# No import cycles and no import from a lower layer of src/ to a higher one (.dependency-cruiser.cjs).
check-deps: install
	npx depcruise src --output-type err

# ESLint (eslint.config.mjs) over src, test, scripts and bench: no warning allowed.
lint: install
	npx eslint --max-warnings 0 .

build: install generated/registry.json
	npx tsc -p tsconfig.json

run: build
	node dist/src/server.js

# Rebuilds the search index from the store (progress on the terminal); the API stays up meanwhile.
reindex: build
	node dist/src/cli/main.js reindex

# The indexer as its own process, for app processes started with INDEXER=off.
indexer: build
	node dist/src/cli/main.js indexer

# Every main path (reads, writes, listings, search, reindex, trees, bulk load) on both stores against the started server, as ratios to baselines measured in the same run; writes bench/results.json (bench/README.md).
bench: build
	npx tsx bench/run.ts

# Not in CI: the search index at 1,000,000 records (reindex, size on disk, the search rows, RSS); SQLite store.
bench-large: build
	BENCH_RECORDS=$${BENCH_RECORDS:-1000000} BENCH_STORES=sqlite BENCH_PARTS=search npx tsx bench/run.ts

test: build check-deps lint
	bash scripts/test.sh

# The quick loop while working: the SQLite leg in two mocha processes, without the long runs (the
# 100k-child trees, the copy between two servers, the SIGKILL crash tests, the command-line
# processes, the 1,200-record harvests, the 500 hostile files, the concurrency rounds, the jobs
# timed beside GETs), with 1,000 fuzz requests instead of 10,000 and 40 property runs instead of 200. `make test` runs everything.
FAST_SKIPPED = test/records/trees/trees-large.test.ts test/cli/import-from.test.ts test/store/crash.test.ts \
  test/jobs/crash.test.ts test/jobs/chunked-crash.test.ts test/domain/webhooks-crash.test.ts test/cli/cli.test.ts test/reports/cli.test.ts \
  test/exchange/oai.test.ts test/exchange/oai-ead.test.ts test/exchange/import-hostile.test.ts test/records/concurrency.test.ts \
  test/jobs/yielding.test.ts
test-fast: build check-deps lint
	TEST_STORES=sqlite FUZZ_RUNS=1000 PROPERTY_RUNS=40 MOCHA_ARGS="--parallel --jobs 2 $(addprefix --ignore ,$(FAST_SKIPPED))" bash scripts/test.sh

test-sqlite: build
	TEST_STORES=sqlite bash scripts/test.sh

test-mariadb: build
	TEST_STORES=mariadb bash scripts/test.sh

# A three-node MariaDB Galera cluster on this machine (scripts/galera.sh, its own ports 3311-3313
# and data under /tmp/galera-art), the store suite through one node, the cluster's own tests
# (test/galera), then the cluster stopped (docs/scaling-out.md). Also the last leg of make test
# (and so of CI) unless TEST_GALERA=off.
test-galera: build
	bash scripts/test-galera.sh

clean:
	rm -rf dist data
