#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/checks/harden/check_hardening.sh -- make lint-hardening: every product of a build
# carries the hardening of the Makefile's HARDEN_CFLAGS and HARDEN_LDFLAGS (Debian's own:
# dpkg-buildflags, hardening=+all). For each shared object and program (librpma.so, the
# engines, the examples, the tools of tests/tools/ and the fault shim that are there):
#   relro        a GNU_RELRO segment                               (-Wl,-z,relro)
#   bind-now     BIND_NOW in FLAGS or NOW in FLAGS_1               (-Wl,-z,now)
#   pie          a program is position-independent (gcc's default on Debian)
#   canary       an import of __stack_chk_fail                     (-fstack-protector-strong)
#   fortify      an import of a checked call: __snprintf_chk, ... (-D_FORTIFY_SOURCE=2)
#   units        every C compile unit's DW_AT_producer ends its stack-protector options
#                with -fstack-protector-strong: each source file, and with LTO the
#                unit of the link itself (<artificial>), which shows the link got the flags
# and for librpma.a: every member's unit as above, __stack_chk_fail and a checked call
# referenced. (gcc records no -D in DW_AT_producer: FORTIFY shows only in the imports;
# it travels in HARDEN_CFLAGS with the canary flag that every unit must show.)
#
#   check_hardening.sh [BUILD_DIR]   the products in BUILD_DIR (default build)
#   check_hardening.sh --self-test   the checks fire: a scratch program, library and
#                                    archive built with the flags pass, and each built
#                                    without one of them fails naming what it lacks
#
# One line per product (PASS or FAIL, what was checked or what is missing), then
# "hardening: N passed, M failed". Exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1

# the C compile units of FILE (an object, an archive or a linked binary) as lines of
# "MEMBER<TAB>UNIT<TAB>SSP": MEMBER is FILE(member.o) in an archive, else -; SSP the
# last stack-protector option of the unit's DW_AT_producer (gcc's command line), or -
units() {
	readelf --debug-dump=info --dwarf-depth=1 "$1" 2>/dev/null | awk '
		function flush() {
			if (inunit && producer ~ /^GNU (C|GIMPLE)/) {
				ssp = "-"
				n = split(producer, opt, " ")
				for (i = 1; i <= n; i++)
					if (opt[i] ~ /^-f(no-)?stack-protector(-[a-z]+)?$/)
						ssp = opt[i]
				print member "\t" name "\t" ssp
			}
			inunit = 0
		}
		BEGIN { member = "-" }
		/^File: / { flush(); member = substr($0, 7); next }
		/\(DW_TAG_compile_unit\)/ { flush(); inunit = 1; name = "?"; producer = ""; next }
		/\(DW_TAG_/ { flush(); next }
		inunit && /DW_AT_producer/ { sub(/^[^:]*: (\([^)]*\): )?/, ""); producer = $0; next }
		inunit && /DW_AT_name/ { sub(/^[^:]*: (\([^)]*\): )?/, ""); name = $0; next }
		END { flush() }'
}

# FILE's C units (as units() prints them): each one's last stack-protector option is
# -fstack-protector-strong (or -all). Sets n_units, and why: what is wrong (the first
# three units, then how many more), empty when nothing is.
check_units() { # FILE
	local member name ssp bad=0 list
	n_units=0 why=''
	list=$(units "$1")
	while IFS=$'\t' read -r member name ssp; do
		[ -n "$ssp" ] || continue
		n_units=$((n_units + 1))
		case $ssp in -fstack-protector-strong | -fstack-protector-all) continue ;; esac
		bad=$((bad + 1))
		[ "$bad" -le 3 ] || continue
		[ "$name" = "<artificial>" ] && name="<artificial> (the LTO link)"
		if [ "$member" = - ]; then member=''; else member=" in $member"; fi
		if [ "$ssp" = - ]; then ssp=''; else ssp="with $ssp, "; fi
		why+="unit $name$member built ${ssp}without -fstack-protector-strong; "
	done <<<"$list"
	[ "$bad" -le 3 ] || why+="and $((bad - 3)) more of the $n_units units; "
	[ "$n_units" -gt 0 ] ||
		why+='no C compile unit in its debug info: its flags cannot be told (built without -g?); '
}

passed=0 failed=0
verdict() { # FILE OK-LIST MISSING-LIST
	if [ -z "$3" ]; then
		passed=$((passed + 1))
		echo "PASS hardening $1: $2"
	else
		failed=$((failed + 1))
		echo "FAIL hardening $1: ${3%; }"
	fi
}

# what readelf says of a linked file, as lines of KEY VALUE: type (EXEC, DYN), relro,
# bindnow, pie (1 when there), canary (1 when __stack_chk_fail is imported), chk (the
# other __*_chk imported, one line each)
elf_facts() { # FILE
	readelf -hldW --dyn-syms "$1" 2>/dev/null | awk '
		$1 == "Type:" && !type { type = $2; print "type", $2 }
		$1 == "GNU_RELRO" { print "relro 1" }
		/\(FLAGS\)/ && / BIND_NOW/ { print "bindnow 1" }
		/\(FLAGS_1\)/ && / NOW/ { print "bindnow 1" }
		/\(FLAGS_1\)/ && / PIE/ { print "pie 1" }
		$7 == "UND" && $8 ~ /^__[a-z0-9_]+_chk(_fail)?(@|$)/ {
			sub(/@.*/, "", $8)
			if ($8 == "__stack_chk_fail") print "canary 1"; else print "chk", $8
		}'
}

# a shared object or a program
check_elf() { # FILE
	local f=$1 ok='' miss='' key value type='' relro='' bindnow='' pie='' canary='' chk=''
	while read -r key value; do
		case $key in
		type) type=$value ;;
		relro | bindnow | pie | canary) printf -v "$key" 1 ;;
		chk) [[ " $chk " == *" $value "* ]] || chk+="${chk:+ }$value" ;;
		esac
	done < <(elf_facts "$f")
	if [ -z "$type" ]; then
		verdict "$f" '' 'not an ELF file'
		return
	fi
	if [ -n "$relro" ]; then ok+='relro, '; else miss+='no GNU_RELRO segment (link with -Wl,-z,relro); '; fi
	if [ -n "$bindnow" ]; then
		ok+='bind-now, '
	else
		miss+='no BIND_NOW: symbols resolved lazily (link with -Wl,-z,now); '
	fi
	if [[ $f != *.so ]]; then
		if [ "$type" = DYN ] && [ -n "$pie" ]; then
			ok+='pie, '
		else
			miss+="not a position-independent program (ELF type $type; linked with -no-pie?); "
		fi
	fi
	if [ -n "$canary" ]; then
		ok+='canary (__stack_chk_fail), '
	else
		miss+='no stack protector: __stack_chk_fail not imported (-fstack-protector-strong); '
	fi
	if [ -n "$chk" ]; then
		ok+="fortify ($chk), "
	else
		miss+='not fortified: no checked call (__*_chk) imported (-D_FORTIFY_SOURCE=2 at -O1 or more); '
	fi
	check_units "$f"
	if [ -z "$why" ]; then ok+="$n_units C units with -fstack-protector-strong"; else miss+=$why; fi
	verdict "$f" "$ok" "$miss"
}

check_archive() { # FILE
	local f=$1 ok='' miss='' refs chk fortified
	if ! refs=$(readelf -sW "$f" 2>/dev/null) || [ -z "$refs" ]; then
		verdict "$f" '' 'cannot read its members'
		return
	fi
	refs=$(awk '$7 == "UND" && $8 ~ /^__[a-z0-9_]+_chk(_fail)?$/ { print $8 }' <<<"$refs" | sort -u)
	if [[ $'\n'$refs$'\n' == *$'\n'__stack_chk_fail$'\n'* ]]; then
		ok+='canary (__stack_chk_fail), '
	else
		miss+='no member references __stack_chk_fail (-fstack-protector-strong); '
	fi
	chk=$(grep -vx '__stack_chk_fail' <<<"$refs" | tr '\n' ' ')
	if [ -n "${chk% }" ]; then
		ok+="fortify (${chk% }), "
	else
		miss+='not fortified: no member references a checked call (__*_chk) (-D_FORTIFY_SOURCE=2); '
	fi
	check_units "$f"
	if [ -z "$why" ]; then
		# how many members use glibc's fortified inline wrappers (their debug lines say so)
		fortified=$(readelf --debug-dump=rawline "$f" 2>/dev/null |
			awk '/^File: / { m = $2 } /_fortified\.h|stdio2\.h/ { seen[m] = 1 }
				END { for (m in seen) n++; print n + 0 }')
		ok+="$n_units members' units with -fstack-protector-strong ($fortified through fortified wrappers)"
	else
		miss+=$why
	fi
	verdict "$f" "$ok" "$miss"
}

check_build() { # BUILD_DIR
	local b=$1 f engines=0 examples=0
	for f in "$b/librpma.a" "$b/librpma.so"; do
		if [ -f "$f" ]; then
			case $f in *.a) check_archive "$f" ;; *) check_elf "$f" ;; esac
		else
			verdict "$f" '' 'not built (make all)'
		fi
	done
	for f in "$b"/librpma_*.so; do
		[ -f "$f" ] || continue
		engines=$((engines + 1))
		check_elf "$f"
	done
	[ "$engines" -gt 0 ] || verdict "$b/librpma_*.so" '' 'no engine built (make engines)'
	for f in "$b"/examples/*; do
		if [ -d "$f" ] || [ ! -x "$f" ]; then continue; fi
		examples=$((examples + 1))
		check_elf "$f"
	done
	[ "$examples" -gt 0 ] || verdict "$b/examples" '' 'no example built (make examples)'
	# the tools and the fault shim: those built
	for f in "$b"/tests/tools/* "$b/fault/libfault.so"; do
		[ -f "$f" ] || continue
		[[ $f == *.so ]] || [ -x "$f" ] || continue
		check_elf "$f"
	done
	echo "hardening: $passed passed, $failed failed ($b)"
	[ "$failed" -eq 0 ]
}

# ---- the self-test: each check fires on a scratch build without its flag ----
self_test() {
	local tmp cc=${CC:-cc} st_pass=0 st_fail=0
	tmp=$(mktemp -d) || exit 1
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int copy(const char *s);
int copy(const char *s)
{
	char buf[16];
	strcpy(buf, s);
	return printf("%s\n", buf);
}
int main(int argc, char **argv)
{
	return argc > 1 ? copy(argv[1]) > 0 : 0;
}
EOF
	local base=(-std=gnu11 -O2 -g)
	local harden=(-fstack-protector-strong -D_FORTIFY_SOURCE=2)
	# shellcheck disable=SC2054 # each element is one linker option, commas and all
	local link=(-Wl,-z,relro -Wl,-z,now)
	build() { # OUT FLAGS... (compile and link in one)
		local out=$1
		shift
		"$cc" "${base[@]}" "$@" -o "$tmp/$out" "$tmp/prog.c" 2>"$tmp/$out.log" || {
			cat "$tmp/$out.log" >&2
			echo "self-test: cannot build $out" >&2
			exit 1
		}
	}
	expect() { # NAME WANT(PASS|FAIL) PATTERN CHECK-FUNCTION FILE
		local out status
		out=$(passed=0 failed=0; "$4" "$tmp/$5")
		status=$([[ $out == PASS* ]] && echo PASS || echo FAIL)
		if [ "$status" = "$2" ] && grep -q -- "$3" <<<"$out"; then
			st_pass=$((st_pass + 1))
			echo "self-test: PASS $1: ${out#* hardening }"
		else
			st_fail=$((st_fail + 1))
			echo "self-test: FAIL $1: wanted $2 matching '$3', got: $out"
		fi
	}
	build good "${harden[@]}" "${link[@]}"
	expect hardened-program PASS 'relro, bind-now, pie, canary' check_elf good
	build lib.so -fPIC -shared "${harden[@]}" "${link[@]}"
	expect hardened-library PASS 'canary (__stack_chk_fail), fortify (.*__strcpy_chk' check_elf lib.so
	build lazy "${harden[@]}" -Wl,-z,relro
	expect without-z-now FAIL 'no BIND_NOW' check_elf lazy
	build norelro "${harden[@]}" -Wl,-z,norelro -Wl,-z,now
	expect without-relro FAIL 'no GNU_RELRO' check_elf norelro
	build nossp -fno-stack-protector -D_FORTIFY_SOURCE=2 "${link[@]}"
	expect without-stack-protector FAIL '__stack_chk_fail not imported.*prog.c.*without -fstack-protector-strong' \
		check_elf nossp
	build nofortify -fstack-protector-strong "${link[@]}"
	expect without-fortify FAIL 'not fortified' check_elf nofortify
	build nopie -no-pie "${harden[@]}" "${link[@]}"
	expect not-pie FAIL 'not a position-independent program' check_elf nopie
	# LTO: the objects hardened, the link (where the code is generated) not
	if ! "$cc" "${base[@]}" -flto -ffat-lto-objects "${harden[@]}" -c -o "$tmp/lto.o" "$tmp/prog.c" ||
		! "$cc" "${base[@]}" -flto "${link[@]}" -o "$tmp/ltolink" "$tmp/lto.o"; then
		echo "self-test: cannot build ltolink" >&2
		exit 1
	fi
	expect lto-link-without-flags FAIL '<artificial> (the LTO link)' check_elf ltolink
	# an archive: one member hardened, one not
	printf '#include <string.h>\nsize_t plain(const char *s);\nsize_t plain(const char *s) { char b[8]; strncpy(b, s, 8); return strlen(b); }\n' \
		>"$tmp/plain.c"
	if ! "$cc" "${base[@]}" "${harden[@]}" -c -o "$tmp/good.o" "$tmp/prog.c" ||
		! "$cc" "${base[@]}" -c -o "$tmp/plain.o" "$tmp/plain.c" ||
		! ar rcs "$tmp/good.a" "$tmp/good.o" || ! ar rcs "$tmp/mixed.a" "$tmp/good.o" "$tmp/plain.o"; then
		echo "self-test: cannot build the archives" >&2
		exit 1
	fi
	expect hardened-archive PASS '1 members' check_archive good.a
	expect archive-member-unhardened FAIL 'plain.c in .*mixed.a(plain.o) built without' check_archive mixed.a
	echo "self-test: $st_pass passed, $st_fail failed"
	[ "$st_fail" -eq 0 ]
}

case "${1:-}" in
-h | --help) sed -n '2,26s/^# \{0,1\}//p' "$0"; exit 0 ;;
--self-test) self_test ;;
-*) echo "check_hardening.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
*) check_build "${1:-build}" ;;
esac
