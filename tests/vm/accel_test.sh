#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/vm/accel_test.sh -- the Soft-RoCE VM harness picks KVM only when KVM can
# run the guest (make test-vm-accel; about a minute under TCG).
#
# A /dev/kvm that exists cannot always run the guest: on nested KVM QEMU aborts
# ("failed to set MSR 0x10a"), or the guest hangs early.  Stand-in QEMUs (the
# real QEMU behind a wrapper, SOFTROCE_VM_QEMU) fail like that under -accel kvm,
# and a stand-in /dev/kvm (SOFTROCE_VM_KVM_DEV) makes the harness probe on
# every machine, with or without a real /dev/kvm.  Each case must end in a run
# that passes, on the accelerator the probe chose; the verdict is remembered
# and re-probed when what decides it changes; a forced KVM fails clearly. Two runs
# started at once take turns (the harness' run lock).
# Prints PASS/FAIL lines and `N passed, M failed`.
# shellcheck disable=SC2016 # the single-quoted commands are expanded by the guest
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
VM=$ROOT/scripts/softroce-vm
CACHE=${SOFTROCE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rpma-fio/softroce-vm}
# shellcheck source=tests/lib/verdict.sh
. "$ROOT/tests/lib/verdict.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/accel-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
: >"$TMP/.start"

REAL_QEMU=$(command -v qemu-system-x86_64 || echo /usr/bin/qemu-system-x86_64)
[[ -x $REAL_QEMU ]] || {
	echo "accel_test: qemu-system-x86_64 is missing: run scripts/deps.sh" >&2
	exit 2
}

# A stand-in QEMU: under -accel kvm it does BEHAVIOUR (abort, hang or work --
# the last runs the guest under TCG, as a KVM that works would); every other
# call goes to the real QEMU.  Each -accel kvm call is counted.
make_standin() { # NAME BEHAVIOUR
	local f=$TMP/$1
	cat >"$f" <<EOF
#!/usr/bin/env bash
args=("\$@") kvm=0
for ((i = 0; i < \${#args[@]}; i++)); do
	if [[ \${args[i]} == -accel && \${args[i + 1]:-} == kvm ]]; then
		kvm=1 args[i + 1]=tcg
	fi
	[[ \${args[i]} == -cpu && \$kvm == 1 ]] && args[i + 1]=max
done
[[ \$kvm == 1 ]] && echo call >>"$f.kvm-calls"
case \$kvm:$2 in
1:abort)
	echo 'qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69' >&2
	echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion \\\`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
	kill -ABRT \$\$ ;;
1:hang) exec sleep 3600 ;;
1:work | 0:*) exec "$REAL_QEMU" "\${args[@]}" ;;
esac
EOF
	chmod +x "$f"
	: >"$f.kvm-calls"
	echo "$f"
}

kvm_calls() { # STANDIN
	wc -l <"$1.kvm-calls"
}

# A fresh stand-in /dev/kvm: a new identity, so no verdict is remembered yet.
make_kvm_dev() { # NAME
	: >"$TMP/$1.kvm"
	chmod 600 "$TMP/$1.kvm"
	echo "$TMP/$1.kvm"
}

# run the harness with a stand-in; output in $TMP/out, status in RC
vm_run() { # QEMU KVM_DEV [ENV=VALUE...] -- COMMAND...
	local qemu=$1 dev=$2 envs=()
	shift 2
	while [[ $1 != -- ]]; do
		envs+=("$1")
		shift
	done
	shift
	RC=0
	env SOFTROCE_VM_QEMU="$qemu" SOFTROCE_VM_KVM_DEV="$dev" SOFTROCE_VM_PROBE_TIMEOUT=4 \
		${envs[@]+"${envs[@]}"} timeout 300 "$VM" run --timeout 240 -- "$@" >"$TMP/out" 2>&1 || RC=$?
}

show_out() {
	sed 's/^/  | /' "$TMP/out" | tail -n 15
}

# The probe falls back to TCG, says why in one line, and the run passes; then (unless
# the third argument is "once") a second run does not probe again.
case_fallback() { # BEHAVIOUR REASON_PATTERN [once]
	local q dev name="kvm that ${1}s: falls back to tcg"
	q=$(make_standin "qemu-$1" "$1")
	dev=$(make_kvm_dev "$1")
	vm_run "$q" "$dev" -- sh -c 'echo "guest accel=$SOFTROCE_VM_ACCEL"; ibv_devices | grep -c rxe0'
	if ((RC == 0)) && grep -qx 'guest accel=tcg' "$TMP/out" &&
		grep -Eq "^softroce-vm: accelerator: tcg \(kvm probe failed: .*$2" "$TMP/out"; then
		pass "$name ($(grep -o 'kvm probe failed: .*' "$TMP/out" | cut -c1-70)...)"
	else
		fail "$name" "exit status $RC"
		show_out
	fi
	STANDIN=$q KVMDEV=$dev
	[ "${3:-}" = once ] && return
	# remembered: the next run does not probe again
	vm_run "$q" "$dev" -- true
	if ((RC == 0)) && (($(kvm_calls "$q") == 1)) && ! grep -q 'probing KVM' "$TMP/out"; then
		pass "kvm that ${1}s: the verdict is remembered (one probe for two runs)"
	else
		fail "kvm that ${1}s: verdict remembered" "exit $RC, $(kvm_calls "$q") probe(s)"
		show_out
	fi
}

case_fallback abort 'QEMU died of signal 6: .*failed to set MSR 0x10a'
ABORT_QEMU=$STANDIN ABORT_DEV=$KVMDEV

# status shows the verdict
out=$(SOFTROCE_VM_QEMU=$ABORT_QEMU SOFTROCE_VM_KVM_DEV=$ABORT_DEV "$VM" status 2>&1 || true)
if grep -q '^accelerator: tcg (kvm probe failed: QEMU died of signal 6' <<<"$out"; then
	pass "status shows the remembered verdict"
else
	fail "status shows the verdict" "$(grep accelerator <<<"$out")"
fi

# what decides the verdict changed (/dev/kvm re-created): probed again
sleep 1.1
chmod 666 "$ABORT_DEV"
vm_run "$ABORT_QEMU" "$ABORT_DEV" -- true
if ((RC == 0)) && (($(kvm_calls "$ABORT_QEMU") == 2)) && grep -q 'probing KVM' "$TMP/out"; then
	pass "a changed /dev/kvm is probed again"
else
	fail "a changed /dev/kvm is probed again" "exit $RC, $(kvm_calls "$ABORT_QEMU") probe(s)"
	show_out
fi

# forced KVM that cannot run the guest: a clear error, not a fallback
vm_run "$ABORT_QEMU" "$ABORT_DEV" SOFTROCE_VM_ACCEL=kvm -- true
if ((RC == 125)) && grep -q 'error: KVM (forced by SOFTROCE_VM_ACCEL=kvm) could not run the guest: .*Assertion' "$TMP/out" &&
	grep -q 'hint: SOFTROCE_VM_ACCEL=tcg' "$TMP/out"; then
	pass "SOFTROCE_VM_ACCEL=kvm fails with a clear error (exit 125)"
else
	fail "SOFTROCE_VM_ACCEL=kvm fails clearly" "exit status $RC"
	show_out
fi

# (the verdict is remembered the same way whatever failed: shown for the abort above)
case_fallback hang 'the guest did not reach its init within 4 s' once

# a KVM that works is used
q=$(make_standin qemu-work work)
dev=$(make_kvm_dev work)
# (the stand-in boots under TCG: give its probe the time TCG needs)
vm_run "$q" "$dev" SOFTROCE_VM_PROBE_TIMEOUT=60 -- sh -c 'echo "guest accel=$SOFTROCE_VM_ACCEL"'
if ((RC == 0)) && grep -qx 'guest accel=kvm' "$TMP/out" &&
	grep -q '^softroce-vm: accelerator: kvm (kvm probe passed)' "$TMP/out" &&
	grep -q 'booting kernel .* (kvm,' "$TMP/out"; then
	pass "a kvm that works is used (probe passed)"
else
	fail "a kvm that works is used" "exit status $RC"
	show_out
fi

# One run at a time, whoever starts them: two runs started together, each QEMU's
# life logged by a stand-in that runs the real one; the second waits, says so, and
# its QEMU starts only after the first's ended.
timed_qemu() {
	local f=$TMP/qemu-timed
	cat >"$f" <<EOF
#!/usr/bin/env bash
echo "start \$(date +%s.%N)" >>"$f.times"
"$REAL_QEMU" "\$@"
rc=\$?
echo "end \$(date +%s.%N)" >>"$f.times"
exit \$rc
EOF
	chmod +x "$f"
	echo "$f"
}
q=$(timed_qemu)
SOFTROCE_VM_QEMU=$q SOFTROCE_VM_ACCEL=tcg timeout 300 "$VM" run -q --timeout 240 -- sleep 2 \
	>"$TMP/first.out" 2>&1 &
first=$!
for _ in $(seq 300); do [[ -s $q.times ]] && break; sleep 0.1; done # its QEMU is up
SOFTROCE_VM_QEMU=$q SOFTROCE_VM_ACCEL=tcg timeout 300 "$VM" run -q --timeout 240 -- true \
	>"$TMP/second.out" 2>&1 &
second=$!
rc1=0 rc2=0
wait "$first" || rc1=$?
wait "$second" || rc2=$?
times=$(awk '{ print $1 }' "$q.times" | tr '\n' ' ')
if ((rc1 == 0 && rc2 == 0)) && grep -q 'waiting for another VM run to end' "$TMP/second.out" &&
	[[ $times == 'start end start end ' ]] &&
	awk 'NR == 2 { e = $2 } NR == 3 { exit !($2 >= e) }' "$q.times"; then
	pass "two runs at once: the second waited, its QEMU started after the first's ended"
else
	fail "two runs at once wait for each other" "exit $rc1 and $rc2, QEMU: $times"
	sed 's/^/  | /' "$TMP/first.out" "$TMP/second.out" | tail -n 20
fi

# the stand-in /dev/kvm files are gone with $TMP: drop their verdicts too
find "$CACHE/accel" -type f -newer "$TMP/.start" -delete 2>/dev/null || true

summary
