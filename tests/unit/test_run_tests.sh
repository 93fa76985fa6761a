#!/bin/bash
# scripts/run-tests.sh counts only what ran: a unit-test run that printed no
# counts is a failure (it used to be "1 passed"), a failing one fails;
# PHPCMP_TEST_LIGHT=1 leaves the heavy integration files out and says so;
# PHPCMP_TEST_INSTRUMENTED=1 those tests/instrumented.txt lists;
# PHPCMP_TEST_UNINSTRUMENTED_ONLY=1 keeps only what those two leave out.
# Drives it with a stand-in for make (MAKE=...).  Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"

# fake-make OUTPUT STATUS: answers `make -n unit-test`, then prints OUTPUT.
fake() { # name output status
	cat >"$tmp/$1" <<SH
#!/bin/bash
for a in "\$@"; do [ "\$a" = -n ] && exit 0; done
printf '%b' '$2'
exit $3
SH
	chmod +x "$tmp/$1"
}

run() { # make-stand-in -> sets out, status
	out=$(MAKE=$tmp/$1 PHPCMP_TEST_ARTIFACTS=$tmp/artifacts-$1 "$root/scripts/run-tests.sh" unit 2>&1)
	status=$?
}

fake silent 'All tests successful.\n' 0
run silent
ok $((status == 0)) "no counts printed, exit 0: run-tests fails"
grep -qE 'unit: +0 passed, +1 failed' <<<"$out"
ok $? "no counts printed: counted as 0 passed, 1 failed"

fake counted 'Files=2, Tests=7, 0 wallclock secs\nResult: PASS\n' 0
run counted
ok "$status" "prove's counts, exit 0: run-tests passes"
grep -qE 'unit: +7 passed, +0 failed' <<<"$out"
ok $? "prove's counts: 7 passed"

fake broken 'Files=1, Tests=3, 0 wallclock secs\nResult: FAIL\n' 2
run broken
ok $((status == 0)) "make unit-test exits 2: run-tests fails"
# PHPCMP_TEST_LIGHT=1: the integration suite without its heavy files, named
# in the summary as not run.  A stand-in node records the files it is given
# and reports one pass in the TAP file.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/node" <<'SH'
#!/bin/bash
[ "$1" = -e ] && exit 0
tap=
for a in "$@"; do
	case $a in
	--test-reporter-destination=stdout) ;;
	--test-reporter-destination=*) tap=${a#*=} ;;
	*.mjs) echo "$a" >>"$NODE_ARGS" ;;
	esac
done
printf '# pass 1\n# fail 0\n' >"$tap"
SH
chmod +x "$tmp/bin/node"
integration() { # label env... -- files...
	local label=$1
	shift
	rm -f "$tmp/args-$label"
	out=$(env PATH="$tmp/bin:$PATH" NODE_ARGS="$tmp/args-$label" PHPCMP_BIN=/bin/true \
		PHPCMP_TEST_ARTIFACTS="$tmp/artifacts-$label" "$@" 2>&1)
	status=$?
}
all=$(cd "$root" && ls tests/integration/*.test.mjs | wc -l)
integration light PHPCMP_TEST_LIGHT=1 PHPCMP_TEST_INSTRUMENTED= "$root/scripts/run-tests.sh" integration
ok "$status" "light: run-tests passes"
! grep -qE '/(story|heavy|reduce|asan|mutants|review|reach|bisect)\.test' "$tmp/args-light" && [ "$(wc -l <"$tmp/args-light")" -eq $((all - 8)) ]
ok $? "light: every integration file but story, heavy, reduce, asan, mutants, review, reach and bisect given to node"
grep -qE 'not run: +asan.test.mjs bisect.test.mjs heavy.test.mjs mutants.test.mjs reach.test.mjs reduce.test.mjs review.test.mjs story.test.mjs \(PHPCMP_TEST_LIGHT=1\)' <<<"$out"
ok $? "light: the summary names what did not run"
integration full PHPCMP_TEST_LIGHT= PHPCMP_TEST_INSTRUMENTED= "$root/scripts/run-tests.sh" integration
[ "$(wc -l <"$tmp/args-full")" -eq "$all" ] && grep -q story "$tmp/args-full" && ! grep -q 'not run' <<<"$out"
ok $? "not light: every integration file, nothing said not run"
integration named PHPCMP_TEST_LIGHT=1 PHPCMP_TEST_INSTRUMENTED= "$root/scripts/run-tests.sh" tests/integration/story.test.mjs
[ "$(cat "$tmp/args-named")" = tests/integration/story.test.mjs ]
ok $? "light: a heavy file named on the command line runs"
# PHPCMP_TEST_INSTRUMENTED=1: the files tests/instrumented.txt lists (their
# daemon coverage is other files') are not given to node, and the summary
# names them as not run; named on the command line they run.
printf '# a comment\n\ntests/integration/health.test.mjs  # covered by: x\ntests/integration/cases.test.mjs\n' >"$tmp/dups.txt"
integration dup PHPCMP_TEST_INSTRUMENTED=1 PHPCMP_TEST_INSTRUMENTED_LIST="$tmp/dups.txt" PHPCMP_TEST_LIGHT=1 \
	"$root/scripts/run-tests.sh" integration
ok "$status" "instrumented: run-tests passes"
! grep -qE '/(health|cases|story|heavy|reduce|asan|mutants|review|reach|bisect)\.test' "$tmp/args-dup" && [ "$(wc -l <"$tmp/args-dup")" -eq $((all - 10)) ]
ok $? "instrumented: every integration file but the listed and the heavy ones given to node"
grep -qE "not run: +cases.test.mjs health.test.mjs \(duplicate coverage: see $tmp/dups.txt\)" <<<"$out" &&
	grep -qE 'integration: +1 passed, +0 failed' <<<"$out"
ok $? "instrumented: the summary names the duplicates as not run, not as passed"
integration dupnamed PHPCMP_TEST_INSTRUMENTED=1 PHPCMP_TEST_INSTRUMENTED_LIST="$tmp/dups.txt" \
	"$root/scripts/run-tests.sh" tests/integration/health.test.mjs
[ "$(cat "$tmp/args-dupnamed")" = tests/integration/health.test.mjs ]
ok $? "instrumented: a listed file named on the command line runs"
integration duplist PHPCMP_TEST_INSTRUMENTED=1 PHPCMP_TEST_LIGHT= "$root/scripts/run-tests.sh" integration
listed=$(cd "$root" && sed -e 's/#.*//' tests/instrumented.txt | awk 'NF { print $1 }' | sort)
given=$(sort "$tmp/args-duplist")
[ -n "$listed" ] && [ -z "$(comm -12 <(echo "$listed") <(echo "$given"))" ] &&
	[ "$(wc -l <"$tmp/args-duplist")" -eq $((all - $(wc -l <<<"$listed"))) ] &&
	(cd "$root" && for f in $listed; do [ -f "$f" ] || exit 1; done)
ok $? "instrumented: tests/instrumented.txt names existing files, none of them given to node"
integration notinstr PHPCMP_TEST_INSTRUMENTED= PHPCMP_TEST_LIGHT= PHPCMP_TEST_INSTRUMENTED_LIST="$tmp/dups.txt" \
	"$root/scripts/run-tests.sh" integration
[ "$(wc -l <"$tmp/args-notinstr")" -eq "$all" ] && ! grep -q 'not run' <<<"$out"
ok $? "not instrumented: every integration file, nothing said not run"
# PHPCMP_TEST_UNINSTRUMENTED_ONLY=1 (CI's plain pass): the heavy files, the
# listed ones and those reading INSTRUMENTED, and nothing else; with the
# instrumented passes' files (LIGHT and INSTRUMENTED) that is every file.
integration plain PHPCMP_TEST_UNINSTRUMENTED_ONLY=1 PHPCMP_TEST_INSTRUMENTED_LIST="$tmp/dups.txt" \
	PHPCMP_TEST_LIGHT= PHPCMP_TEST_INSTRUMENTED= "$root/scripts/run-tests.sh" integration
ok "$status" "plain pass: run-tests passes"
reads=$(cd "$root" && grep -lwE 'INSTRUMENTED|WRAPPED' tests/integration/*.test.mjs | sort)
want=$( (printf '%s\n' tests/integration/{story,heavy,reduce,asan,mutants,review,reach,bisect}.test.mjs \
	tests/integration/health.test.mjs tests/integration/cases.test.mjs; echo "$reads") | sort -u)
[ -n "$reads" ] && [ "$(sort "$tmp/args-plain")" = "$want" ]
ok $? "plain pass: the heavy, the listed and the INSTRUMENTED-reading files given to node, no other"
grep -qE "not run: +$((all - $(wc -l <<<"$want"))) files the instrumented passes run" <<<"$out"
ok $? "plain pass: the summary says how many files it left to the instrumented passes"
[ "$( (cat "$tmp/args-plain" "$tmp/args-dup") | sort -u | wc -l)" -eq "$all" ]
ok $? "plain pass and instrumented passes together: every integration file"
integration plainnamed PHPCMP_TEST_UNINSTRUMENTED_ONLY=1 "$root/scripts/run-tests.sh" tests/integration/runs.test.mjs
[ "$(cat "$tmp/args-plainnamed")" = tests/integration/runs.test.mjs ]
ok $? "plain pass: a file named on the command line runs"
# With no suite named, the plain pass runs the integration suite only: the
# sanitizer pass runs the unit, page and browser suites (a make stand-in
# that records being called shows the unit suite did not run).
fake recorder 'Files=1, Tests=1\n' 0
integration plainall PHPCMP_TEST_UNINSTRUMENTED_ONLY=1 MAKE="$tmp/recorder" PHPCMP_CHROMIUM=/bin/true \
	bash -c '"$0" >"$1/plainall.out" 2>&1; echo $? >"$1/plainall.rc"; cat "$1/plainall.out"' "$root/scripts/run-tests.sh" "$tmp"
[ "$(cat "$tmp/plainall.rc")" = 0 ] && [ -s "$tmp/args-plainall" ] && ! grep -qE '^ *(unit|web|browser):' <<<"$out" &&
	grep -qE 'not run: +unit web browser \(the sanitizer pass runs them' <<<"$out" && ! grep -q '^== unit' <<<"$out"
ok $? "plain pass: the integration suite only, the others named as not run"
tap_done
