#!/usr/bin/env bash
# tests/matrix/test_durability.sh -- can a durability round be fooled? The runner's own
# round (scripts/run_durability.sh's write_and_cut and read_back, sourced) with real fio
# on this host: the servers' memory two files written by fio's psync engine with the
# durability jobs' own settings (jobs/durability-io.inc), the "server" no RDMA at all --
# this shows the judging, not the engines (tests/multinode/durability.sh runs it over
# RDMA across a power cut). The power cut lands while the jobs write: from then on
# every write to the jobs' files fails (EIO: tests/tools/cut_writes.c, preloaded into
# fio) and each job ends with an error, as a client's does when the server's power
# goes; the server back, they may be written again. The platform's loss is modelled
# on the files: each round a platform that
#   - keeps everything: nothing lost, every acknowledged write read back;
#   - reverts to its state from before the round: every acknowledged write LOST;
#   - reverts to an earlier round's state (its blocks where this round wrote): all LOST;
#   - hands one job's region back holding the other's blocks of the same round;
#   - loses the writes of the last 100 ms (fewer than all): exactly those offsets, each method counted
#     over all of its own writes, with a torn block (its data, not its header); the
#     same with one job's writes stalled before the cut (none of its writes lost: its
#     verdict open, the time since its last acknowledgement beyond --max-quiet);
#   - a boot id that cannot be read before the cut, a cut that reboots nothing, a cut
#     that stops no job (they were not writing when it came), a cut that fails, a
#     result folder with a space, a quote and $(...) in its name;
#   - two rounds as the runner's loop runs them, kept or forgotten: its exit status.
# Run by tests/matrix/test_matrix.sh; prints "N passed, M failed".
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$ROOT/build/tests/durability-host
command -v fio >/dev/null || { echo "fio is missing: run scripts/deps.sh"; echo "0 passed, 1 failed"; exit 1; }
CUT_WRITES=$ROOT/build/tests/tools/libcut_writes.so
[ -f "$CUT_WRITES" ] || { echo "no $CUT_WRITES: make tools"; echo "0 passed, 1 failed"; exit 1; }
# shellcheck source=scripts/run_durability.sh
. "$ROOT/scripts/run_durability.sh"
set +e
PASSED=0 FAILED=0

check() { # NAME COMMAND...
	local name=$1
	shift
	if "$@" >"$WORK/check.log" 2>&1; then
		echo "PASS $name"
		PASSED=$((PASSED + 1))
	else
		echo "FAIL $name"
		sed 's/^/  | /' "$WORK/check.log" | tail -n 30
		FAILED=$((FAILED + 1))
	fi
}

# ---- the runner, its server side replaced by two files on this host ----
job_files() {
	JOB_FILES=("$WORK/dev/durability-host.fio")
	SECTIONS=(--section=apm --section=gpspm)
}
start_servers() { :; }
boot_id() { cat "$WORK/boot-id" 2>/dev/null; }

# the power cut: every write to the jobs' files fails from now, a new boot id; the
# server back (the runner waits for it while the client's writes fail): they may be
# written again once that fio has ended (a real client's connection is gone for good)
export LD_PRELOAD=$CUT_WRITES CUT_WRITES_FLAG=$WORK/power-off
# (a stall of gpspm's writes while this file exists: stalled_job)
export CUT_WRITES_STALL=$WORK/stall CUT_WRITES_STALL_JOB=gpspm.0.0
CUT="touch '$CUT_WRITES_FLAG'; od -An -N8 -tx1 /dev/urandom >'$WORK/boot-id'"
BACK="while pgrep -f -- '^fio .*--aux-path=$WORK/' >/dev/null; do sleep 0.2; done; rm -f '$CUT_WRITES_FLAG'"

setup() {
	rm -rf "$WORK" && mkdir -p "$WORK/dev"
	cp "$ROOT/jobs/durability-io.inc" "$WORK/dev/"
	cat >"$WORK/dev/durability-host.fio" <<-EOF
		[global]
		ioengine=psync
		thread
		create_serialize=1
		[global]
		include durability-io.inc
		[apm]
		filename=apm.0.0
		$(grep -x 'verify_pattern=.*01' "$ROOT/jobs/durability.fio")
		[gpspm]
		filename=gpspm.0.0
		$(grep -x 'verify_pattern=.*02' "$ROOT/jobs/durability.fio")
	EOF
	truncate -s 2m "$WORK/dev/apm.0.0" "$WORK/dev/gpspm.0.0"
	# the settings durability_options.py gives the runner, and the run's options.json
	# its rounds are planned from
	METHODS=apm,gpspm METHOD_LIST=(apm gpspm) WRITE_TIME=1 SERVER_SIZE=2m SERVER_IP='' SERVER_MEM=''
	NATIVE=0 DIRECT_WRITE=1 PORT_BASE=7600 SSH_HOST='' WAIT_UP=$BACK WAIT_UP_TIMEOUT=600 DRAM_CANARY=''
	CANARY_RESET=''
	REMOTE_DIR=$ROOT
	printf '{"methods": "%s", "rounds": "1", "bs": "4k", "iodepth": "1", "batch": "1", "write_time": "%s",
		"rate": "150", "server_size": "%s"}\n' "$METHODS" "$WRITE_TIME" "$SERVER_SIZE" >"$WORK/options.json"
	R=1 ROUNDS=1 START=$SECONDS
}

# the memory's state now, kept as NAME
image() { cp "$WORK/dev/apm.0.0" "$WORK/$1.apm"; cp "$WORK/dev/gpspm.0.0" "$WORK/$1.gpspm"; }
restore() { cp "$WORK/$1.apm" "$WORK/dev/apm.0.0"; cp "$WORK/$1.gpspm" "$WORK/dev/gpspm.0.0"; }

# one round as the runner does it: its shape, seed and pattern, the writes, the cut
# while they go on (their writes failing and a new boot id unless CUT says otherwise),
# --before-restart's LOSS, the read-back
round() { # NAME LOSS [CUT]
	local rd=$WORK/$1
	round_start "$WORK/options.json" 1 "$rd" || return 1
	POWER_CUT=${3:-$CUT}
	BEFORE_RESTART=$2
	(cd "$WORK/dev" && write_and_cut "$rd" && read_back "$rd")
}

# COMMAND... with apm's writes at twice the rate of gpspm's
apm_twice_as_fast() {
	local rc=0
	sed -i 's/^\[apm\]$/[apm]\nrate_iops=300/' "$WORK/dev/durability-host.fio"
	"$@" || rc=$?
	sed -i '/^rate_iops=300$/d' "$WORK/dev/durability-host.fio"
	return "$rc"
}

figure() { # ROUND METHOD COLUMN (result.tsv: 6 acknowledged 7 read back 8 lost 9 unread 10 issued)
	awk -F'\t' -v m="$2" -v c="$3" '$1 == m { print $c }' "$WORK/$1/result.tsv"
}

# every method: LOST exactly as many as acknowledged (> 0), all read back
all_lost() { # ROUND
	local m a
	for m in apm gpspm; do
		a=$(figure "$1" "$m" 6)
		echo "$m: $(cut -f6- "$WORK/$1/result.tsv" | tr '\n' ' ')"
		[ "${a:-0}" -gt 0 ] && [ "$(figure "$1" "$m" 8)" = "$a" ] && [ "$(figure "$1" "$m" 7)" = "$a" ] || return 1
	done
}

clean_round() {
	echo boot-0 >"$WORK/boot-id"
	image before-clean
	round clean true || { cat "$WORK/clean/error"; return 1; }
	local m
	for m in apm gpspm; do
		cut -f1,6- "$WORK/clean/result.tsv"
		[ "$(figure clean "$m" 6)" -gt 0 ] && [ "$(figure clean "$m" 8)" = 0 ] &&
			[ "$(figure clean "$m" 7)" = "$(figure clean "$m" 6)" ] || return 1
	done
	[ ! -s "$WORK/clean/lost.tsv" ]
}

# the platform forgets the round: its memory as it was before it
reverts_to_before_round() {
	image before-revert
	round revert "cp '$WORK/before-revert.apm' '$WORK/dev/apm.0.0' && cp '$WORK/before-revert.gpspm' '$WORK/dev/gpspm.0.0'" ||
		{ cat "$WORK/revert/error"; return 1; }
	all_lost revert
}

# the platform holds again what it held after an earlier round (the clean one)
reverts_to_earlier_round() {
	image after-revert
	restore after-revert
	round earlier "cp '$WORK/before-revert.apm' '$WORK/dev/apm.0.0' && cp '$WORK/before-revert.gpspm' '$WORK/dev/gpspm.0.0'" ||
		{ cat "$WORK/earlier/error"; return 1; }
	all_lost earlier
}

# the platform loses the writes of the last 100 ms before the cut (their blocks as they
# were before the round), and one older block of apm is torn (a byte of its data); apm
# writes at twice gpspm's rate, so its losses lie beyond gpspm's count
loses_last_writes() {
	image before-recent
	cat >"$WORK/lose-recent.py" <<-'EOF'
		import sys
		work, rd = sys.argv[1:3]
		# each job's completed writes (milliseconds, 1, direction, size, offset)
		def completed(n):
		    rows = [l.split(",") for l in open(f"{rd}/write_iops.{n}.log")]
		    return [(int(w[0]), int(w[4])) for w in rows if int(w[2]) == 1]
		writes = {"apm": completed(1), "gpspm": completed(2)}
		end = max(t for mine in writes.values() for t, _ in mine)
		for job, mine in writes.items():
		    # up to the very last write acknowledged before the cut
		    lost = [o for t, o in mine if t >= end - 100]
		    old = open(f"{work}/before-recent.{job}", "rb")
		    with open(f"{work}/dev/{job}.0.0", "r+b") as dev:
		        for o in lost:
		            old.seek(o)
		            dev.seek(o)
		            dev.write(old.read(4096))
		        if job == "apm":  # torn: its header intact, one byte of its data not
		            dev.seek(mine[5][1] + 100)
		            dev.write(b"\xa5")
		            lost.append(mine[5][1])
		    with open(f"{rd}/expected-{job}", "w") as f:
		        f.write("".join(f"{o}\n" for o in sorted(set(lost))))
	EOF
	apm_twice_as_fast round recent "python3 '$WORK/lose-recent.py' '$WORK' '$WORK/recent'" ||
		{ cat "$WORK/recent/error"; return 1; }
	local m want got
	for m in apm gpspm; do
		want=$(tr '\n' ' ' <"$WORK/recent/expected-$m")
		got=$(awk -F'\t' -v m="$m" '$1 == m { print $3 }' "$WORK/recent/lost.tsv" | sort -n | tr '\n' ' ')
		echo "$m: lost offsets expected: $want"
		echo "$m: reported:              $got"
		cut -f1,6- "$WORK/recent/result.tsv"
		[ -n "$want" ] && [ "$want" = "$got" ] && [ "$(figure recent "$m" 8)" -eq "$(wc -w <<<"$want")" ] || return 1
	done
	# apm's losses beyond everything gpspm acknowledged are counted too; the window is
	# the last writes, not all
	[ "$(figure recent apm 6)" -gt $(($(figure recent gpspm 6) + 20)) ] || return 1
	[ "$(figure recent apm 8)" -lt "$(figure recent apm 6)" ] || return 1
	grep -q "got pattern" "$WORK/recent/lost.tsv" # the torn block, and what fio read there
}

# the platform hands gpspm's region back holding apm's (a region mapped to the wrong
# job): every gpspm write LOST, none of apm's. The jobs' offsets differ (fio mixes each
# job's number into the seed) but meet here and there, apm writing twice as fast: there
# apm's block has the right header and only the job's pattern byte tells it apart.
# (How many met is printed: it varies from run to run, and can be none.)
aliased_region() {
	apm_twice_as_fast round aliased "cp '$WORK/dev/apm.0.0' '$WORK/dev/gpspm.0.0'" ||
		{ cat "$WORK/aliased/error"; return 1; }
	cut -f1,6- "$WORK/aliased/result.tsv"
	echo "gpspm's writes where apm's block was read: $(grep -c "got pattern '01', wanted '02'" \
		"$WORK/aliased/lost.tsv")"
	local a
	a=$(figure aliased gpspm 6)
	[ "${a:-0}" -gt 0 ] && [ "$(figure aliased gpspm 8)" = "$a" ] && [ "$(figure aliased gpspm 7)" = "$a" ] &&
		[ "$(figure aliased apm 6)" -gt 0 ] && [ "$(figure aliased apm 8)" = 0 ]
}

# no boot id before the cut: no reboot could be seen, the round is not judged
no_boot_id() {
	rm -f "$WORK/boot-id"
	! round noboot true && grep -q "boot id could not be read before the cut" "$WORK/noboot/error" &&
		[ ! -e "$WORK/noboot/result.tsv" ]
}

# a power cut that did nothing (the same boot id after it; the jobs wrote on to their
# regions' end): not judged
cut_did_nothing() {
	echo boot-7 >"$WORK/boot-id"
	! round nocut true true && grep -q "did not boot again" "$WORK/nocut/error" && [ ! -e "$WORK/nocut/result.tsv" ]
}

# a power cut that fails: not judged, the client's writes stopped at once (they would
# go on to the region's end)
cut_failed() {
	echo boot-5 >"$WORK/boot-id"
	local t0=$SECONDS
	! round cutfail true "exit 3" && grep -q "the power cut failed with status 3" "$WORK/cutfail/error" &&
		grep -q "the power cut failed: interrupted" "$WORK/cutfail/write-end.log" &&
		[ ! -e "$WORK/cutfail/result.tsv" ] && [ $((SECONDS - t0)) -lt 30 ]
}

# a cut that reboots but stops no job: their writes ended without an error, so they
# were not going when it came (here: done before it): not judged
cut_stopped_nothing() {
	echo boot-6 >"$WORK/boot-id"
	! round nostop true "od -An -N8 -tx1 /dev/urandom >'$WORK/boot-id'; sleep 5" &&
		grep -q "writes ended without an error: they were not going when the power went" "$WORK/nostop/error" &&
		[ ! -e "$WORK/nostop/result.tsv" ]
}

# --dram-canary: the runner's checks of it, with the server's RAM a file here while
# FAKE_RAM names it (dram_canary.sh takes devices only): it holds the hash of what was
# written; a power cut (CUT plus LOSE_RAM) leaves the hash of other bytes
CANARY_RAM=$WORK/dram FAKE_RAM=''
eval "real_$(declare -f canary)"
canary() { # RD VERB ARGS...
	[ -n "$FAKE_RAM" ] || { real_canary "$@"; return; }
	case $2 in
	check) ;;
	write) [ "$FAKE_RAM" = forgetful ] || "$ROOT/scripts/matrix/dram_canary.sh" expect "$5" >"$FAKE_RAM" ;;
	hash) if [ "$FAKE_RAM" = forgetful ]; then echo 0000; else cat "$FAKE_RAM" 2>>"$1/canary.log"; fi ;;
	esac
}
LOSE_RAM="; echo 0000 >'$CANARY_RAM'"

canary_round() { # NAME CUT
	echo boot-10 >"$WORK/boot-id"
	DRAM_CANARY=/dev/pmem9 CANARY_PATH=/dev/pmem9 CANARY_BLOCK=0 FAKE_RAM=$CANARY_RAM
	round "$1" true "$2"
	local rc=$?
	DRAM_CANARY='' FAKE_RAM=''
	return "$rc"
}

# a power cut that loses the RAM: judged, and the round says the power went
canary_lost() {
	canary_round canarylost "$CUT$LOSE_RAM" || { cat "$WORK/canarylost/error"; return 1; }
	grep -q "lost the round's token" "$WORK/canarylost/power-lost" && [ -s "$WORK/canarylost/result.tsv" ]
}

# a "power cut" that reboots but keeps the RAM (a warm reset by another name): not judged
canary_kept() {
	! canary_round canarykept "$CUT" && grep -q "kept the token written to /dev/pmem9 before the cut" \
		"$WORK/canarykept/error" && [ ! -e "$WORK/canarykept/result.tsv" ] && [ ! -e "$WORK/canarykept/power-lost" ]
}

# a canary that cannot be read after the cut is no proof: not judged
canary_unreadable() {
	! canary_round canarygone "$CUT; rm -f '$CANARY_RAM'" &&
		grep -q "could not be read after the cut" "$WORK/canarygone/error" && [ ! -e "$WORK/canarygone/result.tsv" ]
}

# refused before the writes: with the real dram_canary.sh a device that is no reserved
# RAM (/dev/zero; a RAM disk would lose its bytes at any reboot) and a file; a canary
# that does not hold what was written to it
canary_refused() {
	DRAM_CANARY=/dev/zero CANARY_PATH=/dev/zero CANARY_BLOCK=0 CANARY=abc
	! canary_set "$WORK" && grep -q "/dev/zero is no RAM that the server's kernel leaves alone" "$WORK/error" &&
		grep -q "neither /dev/pmemN of a memmap=SIZE!ADDR region nor /dev/mem" "$WORK/canary.log" || return 1
	DRAM_CANARY=$WORK/dram CANARY_PATH=$WORK/dram
	! canary_set "$WORK" && grep -q "is no RAM" "$WORK/error" && grep -q "is no device" "$WORK/canary.log" || return 1
	DRAM_CANARY=/dev/pmem9 FAKE_RAM=forgetful
	! canary_set "$WORK" && grep -q "did not hold the token just written to it" "$WORK/error"
	local rc=$?
	DRAM_CANARY='' FAKE_RAM=''
	return "$rc"
}

# --canary-reset: a round as the runner runs it with the canary, its control RESET
# before it and the round's cut CUT; the run's exit status
canary_run() { # RUN RESET CUT
	OUT=$WORK/$1 ROUNDS=1 BEFORE_RESTART=true POWER_CUT=$3 CANARY_RESET=$2
	DRAM_CANARY=/dev/pmem9 CANARY_PATH=/dev/pmem9 CANARY_BLOCK=0 FAKE_RAM=$CANARY_RAM
	local recorded='"dram_canary": "/dev/pmem9"'
	[ -z "$2" ] || recorded+=', "canary_reset": "a reset"'
	OPTIONS_JSON=$(sed "s|\"rounds\": \"1\"|&, $recorded|" "$WORK/options.json")
	echo boot-11 >"$WORK/boot-id"
	local rc=0
	(cd "$WORK/dev" && rounds && exit_status) || rc=$?
	DRAM_CANARY='' FAKE_RAM='' CANARY_RESET=''
	echo "$1: status: $(cat "$OUT/status"), exit status $rc"
	cat "$OUT/canary-control/error" 2>/dev/null
	return "$rc"
}

REBOOT="od -An -N8 -tx1 /dev/urandom >'$WORK/boot-id'"

# A platform whose firmware clears memory at every boot, and a "power cut" that is a
# reset keeping all else: the canary loses its token in the round as in a power cut.
# Without --canary-reset nothing tells, and the run passes (the control: the hole is
# there); with it, the reset loses the token as well, and no round runs: exit 3
clearing_firmware() {
	local rc=0
	canary_run unchecked '' "$CUT$LOSE_RAM" || return 1
	canary_run cleared "$REBOOT$LOSE_RAM" "$CUT$LOSE_RAM" || rc=$?
	[ "$rc" = 3 ] && [ ! -e "$WORK/cleared/rounds/r1" ] && [ ! -e "$WORK/cleared/canary-control/kept" ] &&
		grep -q "^partial (the DRAM canary's control failed: no round was run)" "$WORK/cleared/status" &&
		grep -q "/dev/pmem9 lost its token in a reset (--canary-reset)" "$WORK/cleared/canary-control/error"
}

# a platform that keeps RAM across a reset, and a real power cut: the control passes,
# the round judged with the power shown gone, exit 0
control_kept() {
	canary_run controlled "$REBOOT" "$CUT$LOSE_RAM" || return 1
	grep -q "a reset kept the token in /dev/pmem9" "$WORK/controlled/canary-control/kept" &&
		[ "$(cat "$WORK/controlled/status")" = complete ] &&
		grep -q "lost the round's token" "$WORK/controlled/rounds/r1/power-lost"
}

# a --canary-reset that reboots nothing, fails, or cannot run: no round runs, exit 3;
# one that reboots the server but fails as `ssh HOST reboot` does (255, the connection
# dropped): the boot id decides, the control passes
control_resets_nothing() {
	local rc=0
	canary_run noreset true "$CUT$LOSE_RAM" || rc=$?
	[ "$rc" = 3 ] && [ ! -e "$WORK/noreset/rounds/r1" ] &&
		grep -q "did not boot again.*--canary-reset (status 0) reset nothing" "$WORK/noreset/canary-control/error" ||
		return 1
	rc=0
	canary_run resetfails "exit 4" "$CUT$LOSE_RAM" || rc=$?
	[ "$rc" = 3 ] && grep -q "(status 4) reset nothing" "$WORK/resetfails/canary-control/error" || return 1
	rc=0
	canary_run resettypo "no-such-reset-command" "$CUT$LOSE_RAM" || rc=$?
	[ "$rc" = 3 ] && grep -q "^--canary-reset could not be run (status 127)" "$WORK/resettypo/canary-control/error" ||
		return 1
	canary_run sshreset "$REBOOT; exit 255" "$CUT$LOSE_RAM" &&
		grep -q "a reset kept the token" "$WORK/sshreset/canary-control/kept"
}

# a folder whose name holds a space, a quote and $(...) still gets its cut run, and
# nothing of the name executed
odd_folder() {
	local name="a b'c \$(touch pwned)"
	echo boot-8 >"$WORK/boot-id"
	round "$name" true || { cat "$WORK/$name/error"; return 1; }
	[ "$(cat "$WORK/$name/power-cut.rc")" = 0 ] && [ ! -e "$WORK/dev/pwned" ] && [ ! -e pwned ]
}

# RUN: a round as the runner runs it, gpspm's writes stalled (as a lost packet's
# retries stall them) from 1.5 s before the cut while apm's go on; the platform's loss
# LOSS; the exit status, the report built
stalled_run() { # RUN LOSS
	OUT=$WORK/$1 ROUNDS=1 BEFORE_RESTART=$2 POWER_CUT="touch '$WORK/stall'; sleep 1.5; $CUT; rm -f '$WORK/stall'"
	OPTIONS_JSON=$(sed 's/"rounds": "1"/&, "max_quiet": "1000"/' "$WORK/options.json")
	echo boot-12 >"$WORK/boot-id"
	local rc=0
	(cd "$WORK/dev" && rounds && exit_status) || rc=$?
	python3 "$MATRIX" durability "$OUT" >/dev/null || return 1
	echo "$1: status: $(cat "$OUT/status"), exit status $rc"
	cut -f1,6- "$OUT/rounds/r1/result.tsv"
	grep '^| \(apm\|gpspm\) | \*\*' "$OUT/report.md"
	return "$rc"
}

# The platform loses the writes of its last 100 ms, gpspm stalled before them: apm's
# are caught, none of gpspm's acknowledged writes is lost (the hole: judged on them
# alone it SURVIVED), its quiet time names the stall and its verdict stays open. The
# same stall with nothing lost: exit 3, and 0 where --max-quiet allows the stall.
stalled_job() {
	local rc=0 d=$WORK/stalled-lossy
	image before-stalled
	stalled_run stalled-lossy "python3 '$WORK/lose-recent.py' '$WORK' '$d/rounds/r1'" || rc=$?
	[ "$rc" = 1 ] && [ "$(awk -F'\t' '$1 == "apm" { print $8 }' "$d/rounds/r1/result.tsv")" -gt 0 ] &&
		[ "$(awk -F'\t' '$1 == "gpspm" { print $8 }' "$d/rounds/r1/result.tsv")" = 0 ] &&
		[ "$(awk -F'\t' '$1 == "apm" { print $11 }' "$d/rounds/r1/result.tsv")" -lt 500 ] &&
		[ "$(awk -F'\t' '$1 == "gpspm" { print $11 }' "$d/rounds/r1/result.tsv")" -ge 1400 ] &&
		grep -q '^| gpspm | \*\*NOT JUDGED: its last write was acknowledged up to [0-9]* ms before the power went, in round(s) 1 (more than --max-quiet 1000 ms)' \
			"$d/report.md" || return 1
	rc=0
	d=$WORK/stalled
	stalled_run stalled true || rc=$?
	[ "$rc" = 3 ] && grep -q '^| apm | \*\*SURVIVED: .*, quiet for [0-9]* ms at most before each' "$d/report.md" &&
		grep -q '^| gpspm | \*\*NOT JUDGED: its last write was acknowledged up to' "$d/report.md" || return 1
	sed -i 's/"max_quiet": "1000"/"max_quiet": "5000"/' "$d/options.json"
	python3 "$MATRIX" durability-status "$d"
}

# RUN: two rounds as the runner runs them (rounds, then exit_status), the platform's
# loss --before-restart's LOSS: each round its own seed and pattern, the run's status
# and options.json; its exit status
run_of_two() { # RUN LOSS
	OUT=$WORK/$1 ROUNDS=2 BEFORE_RESTART=$2 POWER_CUT=$CUT
	OPTIONS_JSON=$(sed 's/"rounds": "1"/"rounds": "2"/' "$WORK/options.json")
	echo boot-9 >"$WORK/boot-id"
	(cd "$WORK/dev" && rounds) || return 1
	echo "status: $(cat "$OUT/status")"
	cut -f1,6- "$OUT"/rounds/r*/result.tsv
	[ "$(cat "$OUT/status")" = complete ] && grep -q '"rounds": "2"' "$OUT/options.json" &&
		[ "$(cut -f6,7 "$OUT"/rounds/r*/shape.tsv | sort -u | wc -l)" -eq 2 ] || return 1
	exit_status
}

survived_run() {
	run_of_two survived true
}

# the platform forgets each round: the run exits 1
lossy_run() {
	image before-lossy
	local rc=0
	run_of_two lossy "cp '$WORK/before-lossy.apm' '$WORK/dev/apm.0.0' && cp '$WORK/before-lossy.gpspm' '$WORK/dev/gpspm.0.0'" ||
		rc=$?
	echo "exit status $rc"
	[ "$rc" -eq 1 ]
}

# The two fio 3.33 traps that made every round write the same blocks, shown with the
# null engine (the controls: each must hold, or the job files' way around it is moot):
# randseed= moves the offsets only with randrepeat=0, and a command-line option does
# not override what the job file sets
offsets_of() { # JOBFILE OPTIONS...
	local log=$WORK/null.iolog
	rm -f "$log"
	fio "$@" --write_iolog="$log" --output=/dev/null >/dev/null 2>&1 || return 1
	awk '$3 == "write" { printf "%s/%s ", $4, $5 }' "$log"
}

fio_traps() {
	printf '[global]\nioengine=null\nsize=1m\nbs=4k\nrw=randwrite\nnumber_ios=8\n[a]\n' >"$WORK/null.fio"
	local s1 s2 r1 r2 big
	s1=$(offsets_of "$WORK/null.fio" --randseed=1) && s2=$(offsets_of "$WORK/null.fio" --randseed=2) || return 1
	r1=$(offsets_of "$WORK/null.fio" --randrepeat=0 --randseed=1) || return 1
	r2=$(offsets_of "$WORK/null.fio" --randrepeat=0 --randseed=2) || return 1
	big=$(offsets_of "$WORK/null.fio" --bs=8k) || return 1
	echo "seed 1: $s1"; echo "seed 2: $s2"; echo "randrepeat=0, seed 1: $r1"; echo "randrepeat=0, seed 2: $r2"
	echo "--bs=8k over the job file's bs=4k: $big"
	[ -n "$s1" ] && [ "$s1" = "$s2" ] && [ "$r1" != "$r2" ] && [ "$r1" != "$s1" ] && [[ $big != *8192* ]] &&
		grep -qx 'randrepeat=0' "$ROOT/jobs/durability-io.inc" && grep -qx "randseed=\${RANDSEED}" "$ROOT/jobs/durability-io.inc"
}

# the verdict: SURVIVED only with every acknowledged write read back (test_readback.py
# covers the rest of the judging)
setup
check "fio 3.33: randseed moves offsets only with randrepeat=0; job file over command line" fio_traps
check "a clean round: nothing lost, every acknowledged write read back" clean_round
check "memory back to before the round: every acknowledged write LOST" reverts_to_before_round
check "memory back to an earlier round's: every acknowledged write LOST" reverts_to_earlier_round
check "the last 100 ms lost, a torn block: exactly those, each method over its own writes" loses_last_writes
check "a region holding another job's blocks of the round: every write of it LOST" aliased_region
check "a job stalled 1.5 s before the cut: its quiet time, no SURVIVED beyond --max-quiet" stalled_job
check "no boot id before the cut: not judged" no_boot_id
check "a power cut that rebooted nothing: not judged" cut_did_nothing
check "a power cut that stopped no job's writes: not judged" cut_stopped_nothing
check "a power cut that failed: not judged, the writes stopped" cut_failed
check "two rounds as the runner runs them, nothing lost: complete, exit status 0" survived_run
check "two rounds, every round forgotten: exit status 1" lossy_run
check "a result folder with a space, a quote and \$(...): the cut runs, nothing executed" odd_folder
check "--dram-canary: a cut that loses the server's RAM: judged, the power shown gone" canary_lost
check "--dram-canary: a reboot that keeps the RAM: not judged" canary_kept
check "--dram-canary: a canary not readable after the cut: not judged" canary_unreadable
check "--dram-canary: no reserved RAM, a file, one that forgets: refused before the writes" canary_refused
check "--canary-reset: firmware clearing RAM at boot, a reset for a cut: passes without, no round with" \
	clearing_firmware
check "--canary-reset: a reset keeps the RAM, the cut loses it: complete, the power shown gone" control_kept
check "--canary-reset: no reboot, a failure, no such command: no round; ssh's 255 and a reboot: kept" \
	control_resets_nothing
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
