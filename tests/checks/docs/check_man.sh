#!/usr/bin/env bash
# tests/checks/docs/check_man.sh -- check librpma's man pages (make test-man).
#
# Every public function (the header's prototypes and, when built, the symbols
# build/librpma.so exports) has a page; every page renders without a groff
# warning; the generator is deterministic and refuses undocumented or unknown
# functions; a DESTDIR install holds every page. Prints one line per check and
# "man: N passed, N failed".
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: tests/checks/docs/check_man.sh [--help]

Checks the man pages in build/man (run `make man` first, or use `make test-man`).
Environment: MAN_DIR (default build/man), MAKE (default make).
USAGE
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
"") ;;
*) echo "check_man.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/../../.."
MAN_DIR=${MAN_DIR:-build/man}
MAKE=${MAKE:-make}
HEADER=librpma/include/librpma.h
GEN=scripts/gen_man.py
[ -d "$MAN_DIR/man3" ] || { echo "check_man.sh: no pages in $MAN_DIR/man3: run 'make man'" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

pass() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /' | head -n 20; failed=$((failed + 1)); }

# the header's functions, found without the generator: comments removed by the
# preprocessor, typedefs left out
${CC:-cc} -fpreprocessed -dD -E -P "$HEADER" 2>/dev/null | grep -v '^\s*typedef' |
	grep -oE '\brpma_[a-z0-9_]+[[:space:]]*\(' | tr -d '( \t' | sort -u >"$tmp/functions"
nfun=$(wc -l <"$tmp/functions")
if [ "$nfun" -gt 0 ]; then pass "$HEADER declares $nfun functions"; else fail "no function found in $HEADER"; fi

if [ -f build/librpma.so ]; then
	nm -D --defined-only build/librpma.so | awk '$3 ~ /^rpma_/ {sub(/@.*/, "", $3); print $3}' |
		sort -u >"$tmp/exported"
	extra=$(comm -13 "$tmp/functions" "$tmp/exported")
	if [ -z "$extra" ]; then pass "every symbol build/librpma.so exports is in the header"
	else fail "build/librpma.so exports functions the header does not declare" "$extra"; fi
	cat "$tmp/exported" >>"$tmp/functions"
	sort -u -o "$tmp/functions" "$tmp/functions"
else
	fail "build/librpma.so is missing (make test-man builds it)"
fi

missing=$(while read -r f; do [ -f "$MAN_DIR/man3/$f.3" ] || echo "$f"; done <"$tmp/functions")
if [ -z "$missing" ]; then pass "every public function has a page in $MAN_DIR/man3"
else fail "functions without a page" "$missing"; fi
if [ -f "$MAN_DIR/man7/librpma.7" ]; then pass "librpma(7) exists"; else fail "no $MAN_DIR/man7/librpma.7"; fi

# each page: no warning, and NAME names the function
bad=""
for page in "$MAN_DIR"/man3/*.3 "$MAN_DIR"/man7/*.7; do
	# what man --warnings does at MANWIDTH=80, without man's slower pipeline
	LC_ALL=C.UTF-8 groff -ww -z -man -Tutf8 -rLL=80n "$page" 2>"$tmp/warn" ||
		echo "groff failed" >>"$tmp/warn"
	[ -s "$tmp/warn" ] && bad+="$page: $(cat "$tmp/warn")"$'\n'
	name=$(basename "$page"); name=${name%.*}
	sed -n '/^\.SH NAME/{n;p;q}' "$page" | grep -q "^$name\b\|[ ,]$name\b" ||
		bad+="$page: NAME does not mention $name"$'\n'
done
warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$MAN_DIR/man7/librpma.7" 2>&1 >/dev/null) ||
	warn+=" (man failed)"
[ -n "$warn" ] && bad+="man -l librpma.7: $warn"$'\n'
npages=$(find "$MAN_DIR/man3" -name '*.3' | wc -l)
if [ -z "$bad" ]; then pass "all $npages section-3 pages and librpma(7) render without warnings"
else fail "pages with warnings" "$bad"; fi

# deterministic: two runs give the same files
python3 "$GEN" --out "$tmp/a" >/dev/null && python3 "$GEN" --out "$tmp/b" >/dev/null
if diff -r "$tmp/a" "$tmp/b" >/dev/null; then pass "the generator's output is deterministic"
else fail "two runs of the generator differ"; fi

# the generator refuses: a public function without documentation ...
mkdir -p "$tmp/docs-missing"
cp docs/api/*.md "$tmp/docs-missing/"
python3 - "$tmp/docs-missing/srq.md" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
# drop the block of rpma_srq_get_rcq (up to the next block or the end)
text = re.sub(r"## rpma_srq_get_rcq .*?(?=\n## |\Z)", "", text, flags=re.S)
open(path, "w").write(text)
PY
if out=$(python3 "$GEN" --docs "$tmp/docs-missing" --out "$tmp/c" 2>&1); then
	fail "the generator accepted an undocumented function" "$out"
elif grep -q 'without documentation.*rpma_srq_get_rcq' <<<"$out"; then
	pass "the generator refuses an undocumented function, naming it"
else fail "the generator failed without naming the undocumented function" "$out"; fi

# ... and a documented name the header does not declare
mkdir -p "$tmp/docs-unknown"
cp docs/api/*.md "$tmp/docs-unknown/"
printf '\n## rpma_no_such_call - nothing\n\n### DESCRIPTION\nx\n\n### RETURN VALUE\n0\n\n### SEE ALSO\nlibrpma(7)\n' \
	>>"$tmp/docs-unknown/peer.md"
if out=$(python3 "$GEN" --docs "$tmp/docs-unknown" --out "$tmp/d" 2>&1); then
	fail "the generator accepted a function the header does not declare" "$out"
elif grep -q 'rpma_no_such_call is documented but' <<<"$out"; then
	pass "the generator refuses a documented name missing from the header, naming it"
else fail "the generator failed without naming the unknown function" "$out"; fi

# a DESTDIR install holds every page
if out=$($MAKE -s --no-print-directory install-man DESTDIR="$tmp/dest" PREFIX=/usr 2>&1); then
	inst=$(while read -r f; do [ -f "$tmp/dest/usr/share/man/man3/$f.3" ] || echo "$f"; done <"$tmp/functions")
	[ -f "$tmp/dest/usr/share/man/man7/librpma.7" ] || inst+=" librpma.7"
	if [ -z "$inst" ]; then pass "make install-man DESTDIR=... installs all $nfun section-3 pages and librpma(7)"
	else fail "pages missing from the DESTDIR install" "$inst"; fi
else
	fail "make install-man failed" "$out"
fi

echo "man: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
