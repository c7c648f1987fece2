# SPDX-License-Identifier: BSD-3-Clause
"""The rounds of a durability run (scripts/run_durability.sh), from its options.json:
round R's block size, depth, batch and rate (--dry-run's table), and each round's own
seed and verify pattern (the durability-round subcommand: the round's shape.tsv, and
the shape as shell assignments for the runner)."""
import json
import re
import secrets

from .common import shell_assignments

DURABILITY_METHODS = ("apm", "gpspm", "apm-native")
SHIFTS = {"k": 10, "m": 20, "g": 30}


# words of a --power-cut that reboots or resets instead of cutting the power: the
# system flushes its caches on the way down, or the memory keeps its contents
WARM_CUT = re.compile(r"\b(reboot|shutdown|poweroff|halt|kexec|sysrq|systemctl)\b"
                      r"|\bpower\s+(reset|soft|warm|diag)\b", re.IGNORECASE)


def warm_cut(command):
    """The words of COMMAND that read as a reboot or a warm reset, or ""."""
    return ", ".join(sorted({m.group(0).lower() for m in WARM_CUT.finditer(command or "")}))


def warm_cut_note(command):
    """What a run whose --power-cut reads as a reboot or warm reset must say, or ""."""
    words = warm_cut(command)
    if not words:
        return ""
    return (f"the power cut '{command}' reads as a reboot or a warm reset ({words}), not a loss of "
            "power: caches are written back on the way down, or memory keeps its contents, so a "
            "platform that loses acknowledged writes when the power goes can pass. Cut the power: "
            "the BMC's power off or power cycle, a switched PDU's outlet (docs/hardware.md)")


def size_bytes(text):
    """4k, 16m, 1g: bytes (fio's: powers of 2)."""
    shift = SHIFTS.get(text[-1:].lower())
    return int(text[:-1]) << shift if shift else int(text)


def comma_list(text):
    return [x for x in text.split(",") if x]


def round_shape(options, r):
    """Round R (1-based): bs x iodepth cycled, bs first; the batch at most the depth; the
    rate by default a quarter of the region's blocks over the writing time (the writes
    must not cover the region before the cut, else nothing is in flight, and the cut's
    command may take seconds more: a BMC's, the VM's); and the percent of the region's
    blocks written by the cut."""
    bss, qds = comma_list(options["bs"]), comma_list(options["iodepth"])
    i = r - 1
    bs, qd = bss[i % len(bss)], int(qds[i // len(bss) % len(qds)])
    write_time = int(options["write_time"])
    blocks = size_bytes(options["server_size"]) // size_bytes(bs)
    rate = int(options["rate"]) if options["rate"] != "auto" else blocks // (4 * write_time)
    rate = max(rate, 1)
    return {"R_BS": bs, "R_QD": str(qd), "R_BATCH": str(min(int(options["batch"]), qd)), "R_RATE": str(rate),
            "covered": rate * write_time * 100 // blocks}


def dry_run_text(options):
    """--dry-run: the rounds, nothing run."""
    lines = ["round  bs      iodepth  batch  rate (IOPS/method)  of the region by the cut"]
    rounds = int(options["rounds"])
    for r in range(1, rounds + 1):
        s = round_shape(options, r)
        lines.append(f"{r:<6} {s['R_BS']:<7} {s['R_QD']:<8} {s['R_BATCH']:<6} {s['R_RATE']:<19} {s['covered']}%")
    lines += ["", f"methods {options['methods']}, {options['server_size']} each; {rounds} power cuts, "
              f"{options['write_time']}s of writes each, then the server's reboot (the VM's: ~30 s under TCG) "
              "and the read-back"]
    if options.get("canary_reset"):
        lines.append(f"before them the DRAM canary's control: {options['canary_reset']}")
    return "\n".join(lines) + "\n"


def round_identity():
    """A round's SEED (63 random bits: fio takes no more) and PATTERN (16 random bytes):
    offsets and a pattern of its own, so that no block an earlier round, an earlier run
    or another program left can pass for one of this round's writes; and CANARY, the
    token --dram-canary's block holds before the cut (none of an earlier round)."""
    return {"SEED": str(secrets.randbits(63)), "PATTERN": "0x" + secrets.token_hex(16),
            "CANARY": secrets.token_hex(16)}


def cmd_durability_round(args):
    """Round ROUND of the run whose options.json is OPTIONS: DIR/shape.tsv (round, bs,
    iodepth, batch, rate, seed, pattern), and the same as shell assignments."""
    with open(args.options) as f:
        options = json.load(f)
    shape = dict(round_shape(options, args.round), **round_identity())
    with open(f"{args.dir}/shape.tsv", "w") as f:
        print("\t".join([str(args.round)] + [shape[k] for k in ("R_BS", "R_QD", "R_BATCH", "R_RATE", "SEED",
                                                                "PATTERN")]), file=f)
    del shape["covered"]
    print(shell_assignments(shape))
