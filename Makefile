# phpcmp — see README.md.  `make run` serves the default builds; `make test`
# runs every test.  SANITIZE=address,undefined builds with sanitizers.

CC      ?= cc
LISTEN  ?= 127.0.0.1
PORT    ?= 8080
DB      ?= phpcmp.db
# make run ARGS='--ini head:serialize_precision=17': more options for serve (docs/config.md)
ARGS    ?=
SANITIZE ?=

WARN    = -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes \
          -Wmissing-prototypes -Wvla -Wwrite-strings -fno-common
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN)
ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

B = build
# server/ holds one folder per link unit (README, "Architecture"):
#   common/  what all three share: linked into the daemon, the worker
#            loader and each build's core (buffers, clock, frames, the
#            generator, flag names, rmtree, sandbox layer names, ini rules)
#   daemon/  phpcmp itself (never loads PHP): a folder per layer, bottom
#            up model/ (the daemon's own leaf: bytes, results, cases,
#            buckets, the shrinker, the stored JSON), store/, engine/,
#            service/, http/, cli/ (the commands that are clients: submit,
#            review), and main.c (config.c) above them
#            (scripts/check-layers.py: a file's layer is its folder)
#   worker/  phpcmp-worker, the loader that dlopens a build and its core
#   core/    the per-build core, compiled at run time against each build's
#            own headers (server/daemon/engine/build.c), never by this Makefile
DAEMON_DIRS = server/daemon/model server/daemon/store server/daemon/engine server/daemon/service server/daemon/http server/daemon/cli server/daemon
INC     = -Iserver/common $(DAEMON_DIRS:%=-I%) -Iserver/core -Iserver/worker
CFLAGS  += $(INC)
COMMON_SRC = $(wildcard server/common/*.c)
DAEMON_SRC = $(foreach d,$(DAEMON_DIRS),$(wildcard $(d)/*.c))
# Every object is $(B)/obj/NAME.o, whatever its folder (the unit tests and
# scripts/check-layers.py name modules so), and make finds NAME.c in the
# folders: two sources of one name would be one object, so they are refused.
vpath %.c server/common $(DAEMON_DIRS)
SAME_NAME = $(shell printf '%s\n' $(notdir $(COMMON_SRC) $(DAEMON_SRC)) | sort | uniq -d)
ifneq ($(SAME_NAME),)
$(error two sources named $(SAME_NAME) in server/common and server/daemon: one object each, rename one)
endif
COMMON_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(notdir $(COMMON_SRC)))
DAEMON_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(notdir $(DAEMON_SRC))) $(COMMON_OBJ)
HEADERS = $(wildcard server/*/*.h server/daemon/*/*.h)
DAEMON_LIBS = -lmicrohttpd -ljansson -lsqlite3 -lcurl -lcrypto -lpcre2-8 -lm -lpthread

.PHONY: all run test unit-test web-test integration-test browser-test builds clean deps bench web-deps
.PHONY: php-build src-builds
all: $(B)/phpcmp $(B)/phpcmp-worker $(B)/tests/genphp

deps:
	scripts/install-deps.sh

builds:
	scripts/fetch-default-builds.sh builds

# libphp built from a php-src source with patches (docs/builds.md), cached
# in $$PHPCMP_PHP_CACHE (default ~/.cache/phpcmp/php):
#   make php-build NAME=pr-1234 PATCHES="a.patch b.patch" [SOURCE=php-src/] [FLAVOUR=debug]
# makes builds/NAME; src-builds: the from-source builds the tests use.
FLAVOUR ?= release
php-build:
	@test -n "$(NAME)" || { echo 'make php-build: NAME=... is required' >&2; exit 2; }
	scripts/build-php.sh --name "$(NAME)" --flavour "$(FLAVOUR)" $(if $(SOURCE),--source "$(SOURCE)") \
	    $(foreach p,$(PATCHES),--patch "$(p)")

src-builds:
	scripts/src-builds.sh

# Every from-source build the tests use: the flavours (scripts/flavour-builds.sh)
# and the release candidates and mutants (scripts/src-builds.sh) side by
# side; the candidates wait for the release base (a lock), then build while
# the other flavours still compile.
.PHONY: php-builds
php-builds:
	@scripts/flavour-builds.sh & flavours=$$!; \
	scripts/src-builds.sh; src=$$?; \
	wait $$flavours; flv=$$?; \
	[ $$src -eq 0 ] && [ $$flv -eq 0 ] || { echo "php-builds: src-builds exit $$src, flavour-builds exit $$flv" >&2; exit 1; }

# docker/Dockerfile built for real with podman on a bookworm base image
# that mmdebstrap makes from this machine's apt sources (no registry);
# docker-check also runs it and waits for /api/health with both default
# builds (docs/docker.md).  Root; a few minutes.
.PHONY: docker-image docker-check
docker-image:
	scripts/docker-image.sh image
docker-check:
	scripts/docker-image.sh check

# libphp 8.2.32 from source in each flavour for tests/integration/flavours.test.mjs
# and asan.test.mjs, through scripts/build-php.sh: release and debug in full,
# asan and coverage as ext/json instrumented over the release tree.
.PHONY: flavour-builds
flavour-builds:
	scripts/flavour-builds.sh

# The page's libraries (diff, uPlot: served under /vendor/ by server/daemon/http/http.c)
# and the browser tests' driver (playwright-core), exactly as
# package-lock.json pins them, into node_modules/ (git-ignored).
web-deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

$(B)/obj/%.o: %.c $(HEADERS) | $(B)/obj
	$(CC) $(CFLAGS) -c -o $@ $<

# schema.sql is compiled into the daemon with the assembler's .incbin.
$(B)/obj/schema_sql.o: server/daemon/store/schema_sql.S schema.sql | $(B)/obj
	$(CC) -c -o $@ $<

$(B)/phpcmp: $(DAEMON_OBJ) $(B)/obj/schema_sql.o
	$(CC) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

# The worker loader: no libphp at link time; it dlopens the build's library
# and then the build's compiled core (see server/worker/loader.c).
# Never built with SANITIZE (see docs/testing.md): ASan would turn the
# SIGSEGV of a crashing case into its own report and exit 1, and valgrind,
# which runs the measuring workers, cannot run an ASan binary.
# The sandbox (server/worker/sandbox.c, docs/sandbox.md) is part of it.
# -z now: its symbols bound once at start, not again by every fork server's
# child on first call (a crash costs a child; the GOT stays read-only).
WORKER_SRC = server/worker/loader.c server/worker/sandbox.c server/worker/sanitizer.c server/common/proto.c server/common/rmtree.c \
             server/common/buf.c server/common/clock.c server/common/layers.c
$(B)/phpcmp-worker: $(WORKER_SRC) $(HEADERS) | $(B)
	$(CC) $(filter-out -fsanitize=% -fno-omit-frame-pointer,$(CFLAGS)) -Wl,-z,now -o $@ $(WORKER_SRC) -ldl -lseccomp

$(B) $(B)/obj $(B)/tests:
	mkdir -p $@

# Unit tests: one TAP program per module, linked with the objects it tests.
UNIT_TESTS = $(B)/tests/test_flags $(B)/tests/test_casefile $(B)/tests/test_proto $(B)/tests/test_gen

# The generator's files (server/common/gen_internal.h lists them): what makes, renders or hashes cases.
GEN_OBJ = $(B)/obj/gen.o $(B)/obj/gen_php.o $(B)/obj/gen_class.o $(B)/obj/gen_string.o \
          $(B)/obj/gen_render.o $(B)/obj/gen_digest.o

$(B)/tests/test_flags: tests/unit/test_flags.c $(B)/obj/flags.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^)

$(B)/tests/test_casefile: tests/unit/test_casefile.c $(B)/obj/casefile.o $(B)/obj/flags.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^)

$(B)/tests/test_proto: tests/unit/test_proto.c $(B)/obj/proto.o $(B)/obj/result.o $(B)/obj/phpt.o $(B)/obj/bytes.o $(B)/obj/buf.o $(B)/obj/clock.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lpcre2-8

$(B)/tests/test_gen: tests/unit/test_gen.c $(GEN_OBJ) $(B)/obj/flags.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lm -lpthread

# The sandbox, tried for real in forked children.  Like the worker loader
# it is never built with SANITIZE: ASan's shadow memory alone is over any
# address-space limit.
$(B)/tests/test_sandbox: tests/unit/test_sandbox.c server/worker/sandbox.c server/common/rmtree.c server/common/proto.c \
    server/common/buf.c server/common/clock.c server/common/layers.c \
    $(HEADERS) | $(B)/tests
	$(CC) $(filter-out -fsanitize=% -fno-omit-frame-pointer,$(CFLAGS)) -o $@ \
	    $(filter %.c,$^) -lseccomp -lpthread
UNIT_TESTS += $(B)/tests/test_sandbox

# fuzz/fuzz.mk: `make fuzz`, and the replay of fuzz inputs as unit tests.
include fuzz/fuzz.mk

# Reducing a generated case (server/daemon/model/shrink.c, the driver, and its step files).
SHRINK_OBJ = $(B)/obj/shrink.o $(B)/obj/shrink_apply.o $(B)/obj/shrink_value.o $(B)/obj/shrink_cut.o \
             $(B)/obj/shrink_string.o $(B)/obj/shrink_call.o $(B)/obj/shrink_norm.o $(B)/obj/shrink_float.o
UNIT_TESTS += $(B)/tests/test_shrink
$(B)/tests/test_shrink: tests/unit/test_shrink.c $(SHRINK_OBJ) $(GEN_OBJ) $(B)/obj/flags.o $(B)/obj/bytes.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm -lpthread

# Storage tested directly (server/daemon/store/): an in-memory SQLite, the
# schema migrated, one behaviour per check; the model and the leaf library beneath it.
STORE_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(notdir $(wildcard server/daemon/store/*.c))) $(B)/obj/schema_sql.o
MODEL_OBJ = $(patsubst %.c,$(B)/obj/%.o,$(notdir $(wildcard server/daemon/model/*.c)))
UNIT_TESTS += $(B)/tests/test_store
$(B)/tests/test_store: tests/unit/test_store.c $(STORE_OBJ) $(MODEL_OBJ) $(COMMON_OBJ) | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -ljansson -lsqlite3 -lcrypto -lpcre2-8 -lm -lpthread

# The bucket key of a mismatch (server/daemon/model/bucket.c).
UNIT_TESTS += $(B)/tests/test_bucket
$(B)/tests/test_bucket: tests/unit/test_bucket.c $(B)/obj/bucket.o $(B)/obj/result.o $(B)/obj/bytes.o $(B)/obj/flags.o \
    $(B)/obj/sanitizer.o $(B)/obj/phpt.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -ljansson -lpcre2-8

# A sanitizer report in brief (server/daemon/model/sanitizer.c), on real reports.
UNIT_TESTS += $(B)/tests/test_sanitizer
$(B)/tests/test_sanitizer: tests/unit/test_sanitizer.c $(B)/obj/sanitizer.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^)

# A test tool: generated cases as a PHP CLI script (tests/integration/heavy.test.mjs).
TOOLS = $(B)/tests/genphp
$(B)/tests/genphp: tests/tools/genphp.c $(GEN_OBJ) $(B)/obj/flags.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS)
tools: $(TOOLS)

# .phpt files as run-tests.php reads and judges them (server/daemon/model/phpt.c),
# tried on the 8.2.32 source's ext/json/tests (scripts/php-tests.sh).
UNIT_TESTS += $(B)/tests/test_phpt
$(B)/tests/test_phpt: tests/unit/test_phpt.c $(B)/obj/phpt.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lpcre2-8

# Files opened beneath a folder, no link followed (server/daemon/model/beneath.c).
UNIT_TESTS += $(B)/tests/test_beneath
$(B)/tests/test_beneath: tests/unit/test_beneath.c $(B)/obj/beneath.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^)

# The case files under a folder (server/daemon/model/casefind.c): stored runs and `phpcmp submit DIR`.
UNIT_TESTS += $(B)/tests/test_casefind
$(B)/tests/test_casefind: tests/unit/test_casefind.c $(B)/obj/casefind.o $(B)/obj/phpt.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lpcre2-8

# Which --INI-- settings a .phpt test may make (server/common/phptini.c).
UNIT_TESTS += $(B)/tests/test_phptini
$(B)/tests/test_phptini: tests/unit/test_phptini.c $(B)/obj/phptini.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^)

# Callgrind dumps read for per-function costs (server/daemon/model/callgrind.c),
# with three real dumps in tests/fixtures/callgrind/.
UNIT_TESTS += $(B)/tests/test_callgrind
$(B)/tests/test_callgrind: tests/unit/test_callgrind.c $(B)/obj/callgrind.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# The daemon's side of a worker (signals, EPIPE, the backoff without the lock).
UNIT_TESTS += $(B)/tests/test_worker
$(B)/tests/test_worker: tests/unit/test_worker.c $(B)/obj/worker.o $(B)/obj/confine.o $(B)/obj/sanitize.o $(B)/obj/proto.o \
    $(B)/obj/result.o $(B)/obj/phpt.o $(B)/obj/bytes.o $(B)/obj/buf.o $(B)/obj/clock.o $(B)/obj/rmtree.o $(B)/obj/layers.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lpthread -lpcre2-8

# The one fan-out (server/daemon/engine/fanout.c): a function on every build at once.
UNIT_TESTS += $(B)/tests/test_fanout
$(B)/tests/test_fanout: tests/unit/test_fanout.c $(B)/obj/fanout.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lpthread

# Removing a tree others can write into (server/common/rmtree.c): a link
# swapped in while it is emptied, folders of other users left alone.
UNIT_TESTS += $(B)/tests/test_rmtree
$(B)/tests/test_rmtree: tests/unit/test_rmtree.c $(B)/obj/rmtree.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^)

# Measured cases' turns, fair between clients (server/daemon/engine/fairq.c).
UNIT_TESTS += $(B)/tests/test_fairq
$(B)/tests/test_fairq: tests/unit/test_fairq.c $(B)/obj/fairq.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lpthread

# The leaf library's small helpers (buf, clock, id, base64, roles).
# A run's parameters and their stored text (server/daemon/model/runparams.c).
UNIT_TESTS += $(B)/tests/test_runparams
$(B)/tests/test_runparams: tests/unit/test_runparams.c $(B)/obj/runparams.o $(B)/obj/casefile.o $(B)/obj/flags.o $(B)/obj/phpt.o $(B)/obj/buf.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -ljansson -lpcre2-8

# The JSON the database keeps in columns (server/daemon/model/columns.c).
UNIT_TESTS += $(B)/tests/test_columns
$(B)/tests/test_columns: tests/unit/test_columns.c $(B)/obj/columns.o $(B)/obj/result.o $(B)/obj/text.o $(B)/obj/bytes.o \
    $(B)/obj/flags.o $(B)/obj/buf.o $(GEN_OBJ) $(B)/obj/phpt.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -ljansson -lpcre2-8

# gcovr's report into the coverage summary and the page's sources (server/daemon/model/gcovr.c).
UNIT_TESTS += $(B)/tests/test_gcovr
$(B)/tests/test_gcovr: tests/unit/test_gcovr.c $(B)/obj/gcovr.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -ljansson

UNIT_TESTS += $(B)/tests/test_common
$(B)/tests/test_common: tests/unit/test_common.c $(B)/obj/buf.o $(B)/obj/clock.o $(B)/obj/id.o $(B)/obj/base64.o $(B)/obj/result.o $(B)/obj/bytes.o \
    $(B)/obj/text.o $(B)/obj/flags.o $(B)/obj/phpt.o | $(B)/tests
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) -lcrypto -ljansson -lpcre2-8

# The layer check (scripts/check-layers.py) fed bad objects: it can fail;
# scripts/run-tests.sh driven with stand-ins for make: it counts only what ran;
# scripts/libtool-replay.sh's compiles against the release tree's libtool.
# Every unit test prints TAP through tests/unit/tap.h (the shell ones tap.sh).
$(filter $(B)/tests/test_%,$(UNIT_TESTS)): tests/unit/tap.h

unit-test: $(UNIT_TESTS)
	PHPCMP_PHPT_DIR=$$(scripts/php-tests.sh)/ext/json/tests prove $(UNIT_TESTS) tests/unit/test_layers.sh tests/unit/test_run_tests.sh tests/unit/test_libtool_replay.sh

# `make run` and `make test` each work alone on a fresh machine: packages
# first (nothing happens when they are all there), then the build.
run:
	scripts/install-deps.sh --if-missing --run
	$(MAKE) all builds web-deps
	@# php-src's ext/json/tests, for {"suite":"phpt"} (extracted once, cached)
	scripts/php-tests.sh >/dev/null || echo "make run: scripts/php-tests.sh failed: phpt runs will say so" >&2
	$(B)/phpcmp serve --listen $(LISTEN) --port $(PORT) --db $(DB) --build base=builds/base --build head=builds/head --run-stored on $(ARGS)

test:
	scripts/install-deps.sh --if-missing
	$(MAKE) all builds php-builds web-deps
	$(MAKE) --no-print-directory format-check
	$(MAKE) --no-print-directory layer-check
	$(MAKE) --no-print-directory core-compat-check
	scripts/run-tests.sh

# The inner loop: the C unit tests, the page's unit tests and the
# integration files that need only Debian's two builds (no PHP built from
# source: the files that name no src-8.2.32 build), in a few minutes on a
# fresh clone (docs/testing.md).
QUICK_FILES = $(shell grep -L 'srcBuild\|src-8\.2\.32' tests/integration/*.test.mjs)
.PHONY: test-quick
test-quick:
	scripts/install-deps.sh --if-missing
	$(MAKE) all builds web-deps
	scripts/run-tests.sh unit web integration $(QUICK_FILES)

integration-test: all builds php-builds
	scripts/run-tests.sh integration

# The integration suite with every daemon under valgrind memcheck (the
# workers are not traced): a memory error or a definite/indirect leak makes
# the daemon exit 99 and its test fail (docs/testing.md).  The heavy files
# are left out (PHPCMP_TEST_LIGHT=1, scripts/run-tests.sh), as in the
# sanitizer pass.
.PHONY: memcheck load
MEMCHECK = valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --quiet
memcheck: all builds php-builds
	PHPCMP_DAEMON_WRAPPER="$(MEMCHECK)" PHPCMP_TEST_LIGHT=1 PHPCMP_TEST_INSTRUMENTED=1 TEST_TIMEOUT=3000 \
	    scripts/run-tests.sh integration

# 50 clients POSTing cases for 60 s while a run is in progress (docs/hardening.md).
load: all builds
	python3 bench/load.py --clients 50 --duration 60

# coverage.test.mjs needs the from-source release and coverage builds.
browser-test: all builds php-builds web-deps
	scripts/run-tests.sh browser

# The page's unit tests: its pure modules (web/js/) under node --test, no daemon.
web-test: web-deps
	scripts/run-tests.sh web

clean:
	rm -rf $(B) state

# Each module uses only the layers below it, no cycle, no copied helper
# (scripts/check-layers.py reads the objects' symbols with nm; README,
# Architecture).  Run by `make test` and CI; prints the dependency list.
.PHONY: layer-check
layer-check: $(B)/phpcmp
	scripts/check-layers.py $(DAEMON_OBJ) $(B)/obj/schema_sql.o

# The worker cores compile, warnings as errors, against every PHP version
# built here: 8.0.10 and 8.1.0RC1 from configure-only header trees of
# ../shared/php-src's tarballs (made once, cached), 8.2.32 from builds/base.
# Run by `make test` and CI (docs/builds.md#versions).
.PHONY: core-compat-check
core-compat-check:
	scripts/core-compat-check.sh

# One C style (.clang-format, Debian's clang-format): `make format` applies
# it, `make format-check` (run by `make test` and CI) fails on any file it
# would change.
C_FILES = $(wildcard server/*/*.[ch] server/daemon/*/*.[ch] tests/unit/*.[ch] tests/tools/*.[ch] fuzz/*.[ch])
.PHONY: format format-check
format:
	clang-format -i $(C_FILES)
format-check:
	@clang-format --dry-run --Werror $(C_FILES) && echo "format-check: $(words $(C_FILES)) files formatted"
