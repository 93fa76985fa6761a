#!/bin/bash
# Line and branch coverage of what the fuzz harnesses reach: `make
# fuzz-coverage` (after `make fuzz`, so the working corpus is there).
#
#   fuzz/coverage.sh BUILD_DIR CC "CFLAGS" "DAEMON_LIBS" NAME...
#
# Each harness is rebuilt with clang's source-based coverage and a small
# driver (fuzz/replay.c reads its inputs from BUILD_DIR/fuzz/corpus/NAME,
# fuzz/corpus/NAME and fuzz/regressions/NAME), run once, and llvm-cov
# reports the file it is about.
set -euo pipefail

cd "$(dirname "$0")/.."
b=$1 cc=$2 cflags=$3 libs=$4
shift 4
out=$b/fuzz-cov
mkdir -p "$out"
cov=$(command -v llvm-cov || command -v llvm-cov-14)
profdata=$(command -v llvm-profdata || command -v llvm-profdata-14)

declare -A files=(
	[proto]="server/common/proto.c server/common/buf.c server/common/clock.c"
	[flags]="server/common/flags.c"
	[casefile]="server/daemon/model/casefile.c server/common/flags.c server/common/buf.c"
	[body]="server/daemon/http/api_cases.c server/daemon/http/api_reply.c server/common/flags.c server/daemon/model/casefile.c"
	[callgrind]="server/daemon/model/callgrind.c"
)
# The functions each harness is about (api_cases.c and proto.c hold more).
declare -A functions=(
	[proto]='proto_recv|proto_decode|read_all|proto_get|proto_get_int|get_u16|get_u32'
	[flags]='flags_parse|flags_token|flags_format'
	[body]='api_case_from_request|api_body|api_parse_case|api_known_fields|api_opt_string|api_opt_int|api_flags|api_flags_text'
)

for name in "$@"; do
	srcs=${files[$name]}
	extra=()
	if [ "$name" = body ]; then
		# api_cases.c needs the daemon below the commands (all but main.c).
		for f in server/common/*.c server/daemon/*.c server/daemon/*/*.c; do
			case " $srcs " in *" $f "*) continue ;; esac
			[ "$f" = server/daemon/main.c ] && continue
			extra+=("$f")
		done
		$cc -c -o "$out/schema_sql.o" server/daemon/store/schema_sql.S
		extra+=("$out/schema_sql.o")
	fi
	# shellcheck disable=SC2086
	$cc $cflags -DFUZZ_NAME="\"$name\"" -DREPLAY_EXTRA_DIR="\"$b/fuzz/corpus/$name\"" \
		-o "$out/cov_$name" fuzz/replay.c "fuzz/fuzz_$name.c" $srcs "${extra[@]}" $libs
	rm -f "$out/$name.profraw"
	LLVM_PROFILE_FILE="$out/$name.profraw" "$out/cov_$name" >/dev/null
	"$profdata" merge -sparse -o "$out/$name.profdata" "$out/$name.profraw"
	echo "== $name"
	if [ -n "${functions[$name]:-}" ]; then
		# shellcheck disable=SC2086
		"$cov" report "$out/cov_$name" -instr-profile="$out/$name.profdata" -show-functions ${srcs%% *} \
			| grep -E "^(Name|([^ ]*:)?(${functions[$name]}) )" || true
	else
		# shellcheck disable=SC2086
		"$cov" report "$out/cov_$name" -instr-profile="$out/$name.profdata" ${srcs%% *}
	fi
done
