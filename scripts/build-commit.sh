#!/bin/bash
# Build libphp at a commit of a php-src git repository, cheaply, without
# ever changing that repository (docs/review.md, "From a php-src checkout").
#
#   scripts/build-commit.sh --src REPO --base REF [--commit REF] [build-php.sh options...]
#   scripts/build-commit.sh --src REPO --base REF --source-only
#   scripts/build-commit.sh --src REPO --diff FROM TO --out FILE
#
# The base commit is the full build; any other commit is the base's source
# plus `git diff BASE COMMIT` as one patch, which scripts/build-php.sh builds
# over the base's object tree in seconds (only what changed recompiles).
#
# The base's source: when the base commit's tree is the content of
# build-php.sh's default tarball (php-src 8.2.32 as Debian ships it, every
# file committed: git add -f), the default source itself, so the full build
# already cached for it is used (its tree id is computed once per tarball
# and kept in the cache: commits/pristine-SHA256.tree).  Any other tree is
# `git archive`d once into commits/src/TREE/ and given to build-php.sh as a
# source folder (a full build, once; cached by build-php.sh like any source).
#
# The diffs leave out what does not go into libphp (tests, *.phpt, NEWS,
# UPGRADING*, *.md, .github/, .circleci/): a commit that adds a test is not
# a full build.  A commit whose diff is then empty is the base's build.
# Diffs are cached by the two trees (commits/diffs/FROMTREE-TOTREE.patch).
# Not supported: binary changes (GNU patch cannot apply them; that commit
# does not build).
#
# Only `git rev-parse`, `git diff` and `git archive` read the repository:
# no checkout, no index, no stash, nothing written there.
#
# --source-only prints the base's source (the word "default", or the
# folder) and builds nothing.  --diff writes the diff between two commits
# (the same exclusions) to FILE and prints "empty" or "changed".
# Everything else is passed to scripts/build-php.sh (--name, --builds,
# --flavour, --patch..., --plan, --key).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${PHPCMP_PHP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/phpcmp/php}
mkdir -p "$cache/commits"
cache=$(cd "$cache" && pwd)

die() { echo "build-commit: $*" >&2; exit 1; }
log() { echo "build-commit: $*" >&2; }

src= base= commit= mode=build diff_from= diff_to= out=
rest=()
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=${2:?}; shift 2 ;;
	--base) base=${2:?}; shift 2 ;;
	--commit) commit=${2:?}; shift 2 ;;
	--source-only) mode=source; shift ;;
	--diff) mode=diff; diff_from=${2:?}; diff_to=${3:?}; shift 3 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	*) rest+=("$1"); shift ;;
	esac
done
[ -n "$src" ] || die "--src REPO is required"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "$src is not a git repository"

tree_of() { # ref
	git -C "$src" rev-parse --verify --quiet "$1^{commit}^{tree}" || die "$1: no such commit in $src"
}

# What libphp is not made of: left out of every diff.
excludes=(':(glob,exclude)**/tests/**' ':(glob,exclude)**/*.phpt' ':(exclude)NEWS'
	':(glob,exclude)UPGRADING*' ':(glob,exclude)**/*.md' ':(glob,exclude).github/**'
	':(glob,exclude).circleci/**')

# The diff FROM..TO into a file: "empty" or "changed" on stdout.
write_diff() { # from to file
	local tmp
	tmp=$(mktemp "$3.XXXXXX")
	git -C "$src" -c core.quotePath=false diff --no-color --no-ext-diff --no-renames --no-textconv \
		"$1" "$2" -- . "${excludes[@]}" > "$tmp" || { rm -f "$tmp"; die "git diff $1 $2 failed"; }
	mv -f "$tmp" "$3"
	if [ -s "$3" ]; then echo changed; else echo empty; fi
}

if [ "$mode" = diff ]; then
	[ -n "$out" ] || die "--diff FROM TO needs --out FILE"
	tree_of "$diff_from" >/dev/null
	tree_of "$diff_to" >/dev/null
	write_diff "$diff_from" "$diff_to" "$out"
	exit 0
fi

[ -n "$base" ] || die "--base REF is required"
base_tree=$(tree_of "$base")

# The tree id of the default tarball's content, computed once (a few
# seconds: 22,000 files hashed) into commits/pristine-SHA.tree.
pristine_tree() {
	local tarball sha file tmp lockfd
	tarball=$("$root/scripts/build-php.sh" --fetch-source) || die "no default source"
	sha=$(sha256sum < "$tarball" | cut -d' ' -f1)
	file=$cache/commits/pristine-$sha.tree
	if [ ! -s "$file" ]; then
		exec {lockfd}>"$file.lock"
		flock "$lockfd"
		if [ ! -s "$file" ]; then
			log "the tree id of $(basename "$tarball") (once)"
			tmp=$(mktemp -d "$cache/commits/pristine.XXXXXX")
			tar -xf "$tarball" -C "$tmp" --strip-components=1 --no-same-owner
			git init -q --bare "$tmp.git"
			GIT_DIR=$tmp.git GIT_WORK_TREE=$tmp GIT_INDEX_FILE=$tmp.git/index \
				git -c core.autocrlf=false -c core.fileMode=true add -A -f . >/dev/null
			GIT_DIR=$tmp.git GIT_INDEX_FILE=$tmp.git/index git write-tree > "$file.tmp"
			mv -f "$file.tmp" "$file"
			rm -rf "$tmp" "$tmp.git"
		fi
		exec {lockfd}>&-
	fi
	cat "$file"
}

# The base's source: "default", or a folder under the cache.
base_source() {
	local dir lockfd tmp
	if [ "$base_tree" = "$(pristine_tree)" ]; then
		echo default
		return
	fi
	dir=$cache/commits/src/$base_tree
	if [ ! -d "$dir" ]; then
		mkdir -p "$cache/commits/src"
		exec {lockfd}>"$dir.lock"
		flock "$lockfd"
		if [ ! -d "$dir" ]; then
			log "git archive $base (tree $base_tree) into $dir (once)"
			tmp=$(mktemp -d "$dir.XXXXXX")
			git -C "$src" archive --format=tar "$base_tree" | tar -xf - -C "$tmp" ||
				{ rm -rf "$tmp"; die "git archive $base failed"; }
			mv -T "$tmp" "$dir"
		fi
		exec {lockfd}>&-
	fi
	echo "$dir"
}

source=$(base_source)
if [ "$mode" = source ]; then
	echo "$source"
	exit 0
fi

args=()
[ "$source" = default ] || args+=(--source "$source")
if [ -n "$commit" ]; then
	commit_tree=$(tree_of "$commit")
	if [ "$commit_tree" != "$base_tree" ]; then
		mkdir -p "$cache/commits/diffs"
		patch=$cache/commits/diffs/$base_tree-$commit_tree.patch
		if [ ! -f "$patch" ]; then
			write_diff "$base" "$commit" "$patch" >/dev/null
		fi
		[ ! -s "$patch" ] || args+=(--patch "$patch")
	fi
fi
exec "$root/scripts/build-php.sh" "${args[@]}" "${rest[@]}"
