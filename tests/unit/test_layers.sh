#!/bin/bash
# The layer check can fail: scripts/check-layers.py fed small objects with a
# use of a higher layer, a cycle, a copied helper, a stale tolerated use, a
# module in no layer's folder or in two, an include from a higher folder,
# a worker core header declaring another file's functions, a circle of
# core files.
# Prints TAP (run by prove in `make unit-test`).
set -u
. "$(dirname "$0")/tap.sh"
check=$root/scripts/check-layers.py
cc=${CC:-cc}

# The folder (under server/) of a module's source: its layer.
folder() { # name
	case $1 in
	flags | buf) echo common ;;
	bytes | text) echo daemon/model ;;
	db | db_*) echo daemon/store ;;
	build | worker) echo daemon/engine ;;
	triage) echo daemon/service ;;
	http | api | api_*) echo daemon/http ;;
	main) echo daemon ;;
	*) echo elsewhere ;;
	esac
}

# A case: C sources (name=text ..., each in its layer's folder under
# root/server; FOLDER/name=text in another; FOLDER/x.h=text a header)
# compiled into objects; the check's exit status and what it printed.
run() { # expect-status pattern description name=source...
	local want=$1 pattern=$2 what=$3 dir
	shift 3
	dir=$tmp/case$n
	mkdir -p "$dir/obj" "$dir/root/server"
	: >"$dir/known"
	for kv in "$@"; do
		local name=${kv%%=*} src=${kv#*=} path
		if [ "$name" = known ]; then printf '%s\n' "$src" >"$dir/known"; continue; fi
		case $name in
		*.h) path=$dir/root/server/$name ;;
		*/*) path=$dir/root/server/$name.c ;;
		*) path=$dir/root/server/$(folder "$name")/$name.c ;;
		esac
		mkdir -p "$(dirname "$path")"
		printf '%s\n' "$src" >"$path"
	done
	# The worker core is compiled at run time, not into objects: its rules are the sources'.
	for src in $(find "$dir/root/server" -name '*.c' -not -path '*/server/core/*'); do
		"$cc" -O0 $(find "$dir/root/server" -type d -printf '-I%p ') -c -o "$dir/obj/$(basename "$src" .c).o" "$src" ||
			{ ok 1 "$what (compiles)"; return; }
	done
	out=$(python3 "$check" --objects "$dir/obj" --known "$dir/known" --root "$dir/root" 2>&1)
	status=$?
	if [ "$status" = "$want" ] && grep -qE "$pattern" <<<"$out"; then
		ok 0 "$what"
	else
		ok 1 "$what (status $status, wanted $want)"
		sed 's/^/# /' <<<"$out"
	fi
}

run 0 'no upward use' 'a lower module used from above passes, and the list is printed' \
	'buf=int buf_len(void) { return 1; }' \
	'bytes=int buf_len(void); int bytes_len(void) { return buf_len(); }' \
	'db=int bytes_len(void); int db_open(void) { return bytes_len(); }'
run 1 'buf \(common, layer 1\) uses db \(store, layer 3\), a higher layer: db_open' \
	'the leaf library calling storage fails, naming the symbol' \
	'buf=int db_open(void); int buf_len(void) { return db_open(); }' \
	'db=int db_open(void) { return 2; }'
run 1 'bytes \(model, layer 2\) uses db \(store, layer 3\), a higher layer: db_open' \
	'the daemon'"'"'s model calling storage fails' \
	'bytes=int db_open(void); int bytes_len(void) { return db_open(); }' \
	'db=int db_open(void) { return 2; }'
run 1 'db \(store, layer 3\) uses main \(daemon, layer 8\)' 'storage calling the commands fails (app_role_name in main.c, before)' \
	'db=const char *app_role_name(int); const char *db_x(void) { return app_role_name(0); }' \
	'main=const char *app_role_name(int r) { return r ? "head" : "base"; } int main(void) { return 0; }'
run 1 'a cycle between build, worker' 'two modules of one layer using each other fail as a cycle' \
	'build=int worker_a(void); int build_b(void) { return worker_a(); }' \
	'worker=int build_b(void); int worker_a(void) { return build_b(); }'
run 1 'a cycle between api, http' 'http.c and api.c calling each other (http_query / api_error, before) fail' \
	'http=int api_error(void); int http_query(void) { return api_error(); }' \
	'api=int http_query(void); int api_error(void) { return http_query(); }'
run 1 'dup_helper is defined twice: in bytes and in flags' 'a global defined by two modules fails' \
	'bytes=int dup_helper(void) { return 1; }' \
	'flags=int dup_helper(void) { return 2; }'
run 1 'static now_ms is defined in 2 modules \(db, worker\)' 'a copied static helper (five now_ms, before) fails' \
	'db=static long now_ms(void) { return 1; } long db_t(void) { return now_ms(); }' \
	'worker=static long now_ms(void) { return 2; } long worker_t(void) { return now_ms(); }'
run 0 'triage +-> api!' 'a tolerated upward use (scripts/layers-known.txt) passes, marked' \
	'known=triage -> api' \
	'triage=int api_error(void); int triage_x(void) { return api_error(); }' \
	'api=int api_error(void) { return 0; }'
run 1 'triage -> api is listed in .* but no longer used' 'a tolerated use that is gone fails: the list only shrinks' \
	'known=triage -> api' \
	'triage=int triage_x(void) { return 0; }' \
	'api=int api_error(void) { return 0; }'
run 1 'nope: not in any layer' 'a module in no folder of a layer fails' \
	'nope=int nope_x(void) { return 0; }'
run 1 'db: in 2 layers. folders \(server/daemon/store, server/daemon/http\)' 'one name in two folders fails (one object)' \
	'db=int db_open(void) { return 2; }' \
	'daemon/http/db=int db_other(void) { return 3; }'
run 0 'no upward use' 'a folder may include the headers of its own layer and those below' \
	'daemon/store/db.h=int db_open(void);' \
	'db=#include "db.h"
int db_open(void) { return 2; }' \
	'api=#include "db.h"
int api_x(void) { return db_open(); }'
run 1 'server/daemon/store/db.c includes "http.h" of server/daemon/http/' 'a folder including a header of a higher folder fails' \
	'daemon/http/http.h=int http_query(void);' \
	'db=#include "http.h"
int db_open(void) { return 2; }'
run 1 'server/core/gencore.h declares core_encode, a function of server/core/core.c' \
	'a core header declaring another file'"'"'s function fails (gencore.h declaring core.c'"'"'s, before)' \
	'bytes=int bytes_len(void) { return 1; }' \
	'core/gencore.h=int gencore_handle(void);
void core_encode(int value,
    int flags);' \
	'core/gencore=#include "gencore.h"
int gencore_handle(void) { core_encode(1, 0); return 0; }' \
	'core/core=#include "gencore.h"
void core_encode(int value, int flags)
{
	(void)value;
	(void)flags;
	gencore_handle();
}'
run 1 'a circle in server/core between core.c, gencore.c: core.c -> gencore.h; gencore.c -> core.h' \
	'core files including each other'"'"'s headers fail as a circle' \
	'bytes=int bytes_len(void) { return 1; }' \
	'core/core.h=int core_x(void);' \
	'core/gencore.h=int gencore_handle(void);' \
	'core/gencore=#include "gencore.h"
#include "core.h"
int gencore_handle(void) { return core_x(); }' \
	'core/core=#include "core.h"
#include "gencore.h"
int core_x(void) { return gencore_handle(); }'
tap_done
