# Fuzzing, included by the Makefile (see docs/testing.md):
#
#   make fuzz FUZZ_SECONDS=30    build the libFuzzer harnesses (clang, ASan,
#                                UBSan) and run each for FUZZ_SECONDS over its
#                                committed seed corpus, fuzz/corpus/NAME
#   make fuzz-build              only build them, into $(B)/fuzz
#
# The same harnesses, compiled with $(CC) and fuzz/replay.c instead of
# libFuzzer, replay every seed and every regression input
# (fuzz/regressions/NAME: what fuzzing once found) in `make unit-test`.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZERS       = proto casefile flags body phpt callgrind
FB            = $(B)/fuzz
FUZZ_CFLAGS   = -g -O1 -std=c11 -D_GNU_SOURCE $(WARN) $(INC) \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_LINK     = -fsanitize=fuzzer,address,undefined
# Every daemon object but main.o (the commands), for the request-body harness.
FUZZ_DAEMON   = $(filter-out $(FB)/obj/main.o,$(DAEMON_OBJ:$(B)/obj/%=$(FB)/obj/%)) $(FB)/obj/schema_sql.o

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZERS:%=$(FB)/fuzz_%)

fuzz: fuzz-build
	fuzz/run.sh $(FB) $(FUZZ_SECONDS) $(FUZZERS)

$(FB) $(FB)/obj:
	mkdir -p $@

$(FB)/obj/%.o: %.c $(HEADERS) | $(FB)/obj
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(FB)/obj/schema_sql.o: server/daemon/store/schema_sql.S schema.sql | $(FB)/obj
	$(FUZZ_CC) -c -o $@ $<

$(FB)/fuzz_proto: fuzz/fuzz_proto.c $(FB)/obj/proto.o $(FB)/obj/buf.o $(FB)/obj/clock.o | $(FB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LINK) -o $@ $^
$(FB)/fuzz_flags: fuzz/fuzz_flags.c $(FB)/obj/flags.o | $(FB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LINK) -o $@ $^
$(FB)/fuzz_casefile: fuzz/fuzz_casefile.c $(FB)/obj/casefile.o $(FB)/obj/flags.o $(FB)/obj/buf.o | $(FB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LINK) -o $@ $^
$(FB)/fuzz_phpt: fuzz/fuzz_phpt.c $(FB)/obj/phpt.o $(FB)/obj/buf.o | $(FB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LINK) -o $@ $^ -lpcre2-8
$(FB)/fuzz_callgrind: fuzz/fuzz_callgrind.c $(FB)/obj/callgrind.o | $(FB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LINK) -o $@ $^
$(FB)/fuzz_body: fuzz/fuzz_body.c $(FUZZ_DAEMON) | $(FB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LINK) -o $@ $^ $(DAEMON_LIBS)

# ---- replay: unit tests (TAP), no libFuzzer, built like the rest
REPLAY_TESTS = $(FUZZERS:%=$(B)/tests/replay_%)
UNIT_TESTS  += $(REPLAY_TESTS)
REPLAY_CC    = $(CC) $(CFLAGS) $(LDFLAGS) -DFUZZ_NAME=\"$*\"

$(B)/tests/replay_%: fuzz/replay.c fuzz/fuzz_%.c | $(B)/tests
	$(REPLAY_CC) -o $@ $^ $(if $(filter body,$*),$(DAEMON_LIBS)) $(if $(filter phpt,$*),-lpcre2-8)
$(B)/tests/replay_proto: $(B)/obj/proto.o $(B)/obj/buf.o $(B)/obj/clock.o
$(B)/tests/replay_flags: $(B)/obj/flags.o
$(B)/tests/replay_phpt: $(B)/obj/phpt.o $(B)/obj/buf.o
$(B)/tests/replay_callgrind: $(B)/obj/callgrind.o
$(B)/tests/replay_casefile: $(B)/obj/casefile.o $(B)/obj/flags.o $(B)/obj/buf.o
$(B)/tests/replay_body: $(filter-out $(B)/obj/main.o,$(DAEMON_OBJ)) $(B)/obj/schema_sql.o

# ---- coverage of the code under fuzzing: the harnesses built with clang's
# source-based coverage (no sanitizers), run once over the working corpus
# and the seeds; prints llvm-cov's report for the parsing code.
FC = $(B)/fuzz-cov
FUZZ_COV_CFLAGS = -g -O0 -std=c11 -D_GNU_SOURCE $(INC) -fprofile-instr-generate -fcoverage-mapping
.PHONY: fuzz-coverage
fuzz-coverage:
	fuzz/coverage.sh $(B) $(FUZZ_CC) "$(FUZZ_COV_CFLAGS)" "$(DAEMON_LIBS)" $(FUZZERS)
