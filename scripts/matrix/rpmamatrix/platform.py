# SPDX-License-Identifier: BSD-3-Clause
"""The platform's facts for env.json (`matrix platform`): DDIO per RDMA device's PCIe root
port, the RNICs' firmware, links and NUMA nodes, where the server's memory is, the PMem
regions and namespaces, the CPU frequency governors and the CPU's identity. Every path is
read under a sysroot (a fake tree in tests/matrix/test_platform.py), and every fact is a
readable string: a missing or odd file says why, it never raises."""
import collections
import glob
import json
import os
import re
import shutil
import subprocess

# perfctrlsts_0 of an Intel Xeon Scalable PCIe root port (Intel Xeon Processor Scalable
# Family Datasheet, Volume Two: Registers): its offset in config space and two bits
PERFCTRLSTS_0 = 0x180
USE_ALLOCATING_FLOW_WR = 1 << 7  # 1: inbound writes allocate in the LLC (DDIO on)
NO_SNOOP_OP_WR_EN = 1 << 3
# what an unprivileged reader gets of a PCI config space (the standard header)
UNPRIVILEGED_CONFIG_BYTES = 64
INTEL_PCI_VENDOR = "0x8086"
# (vendor_id, family, model) of the CPUs whose datasheet documents perfctrlsts_0:
# model 0x55, the Xeon Scalable server parts Skylake-SP, Cascade Lake and Cooper Lake
DDIO_DOCUMENTED_CPUS = {("GenuineIntel", 6, 85)}
PCI_ADDRESS = re.compile(r"[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")
# name prefixes of the kernel's software RDMA devices (Soft-RoCE, Soft-iWARP): siw may
# have the NIC's PCI function as its parent, yet its writes are the CPU's copies
SOFTWARE_RDMA_PREFIXES = ("rxe", "siw")
TOOL_TIMEOUT_S = 10

CpuId = collections.namedtuple("CpuId", "vendor family model")
Ddio = collections.namedtuple("Ddio", "state text")  # state: on, off or unknown
RootPort = collections.namedtuple("RootPort", "name path")


def under(sysroot, path):
    """PATH (absolute, as on the platform) inside SYSROOT."""
    return os.path.join(sysroot, path.lstrip("/"))


def read_text(path):
    """A sysfs/procfs file's text, stripped, or None when it cannot be read."""
    try:
        with open(path, errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def gib(n):
    return f"{int(n) / (1 << 30):.1f} GiB"


def cpu_from_cpuinfo(text):
    """The first CPU's vendor, family and model from /proc/cpuinfo's text (None where
    absent: an Arm CPU has none of these lines)."""
    found = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if sep and key in ("vendor_id", "cpu family", "model") and key not in found:
            found[key] = value.strip()
    vendor = found.get("vendor_id")
    family = int(found["cpu family"]) if found.get("cpu family", "").isdigit() else None
    model = int(found["model"]) if found.get("model", "").isdigit() else None
    return CpuId(vendor, family, model)


def cpu_text(cpu):
    if cpu.vendor is None or cpu.family is None or cpu.model is None:
        return "unknown (/proc/cpuinfo names no vendor_id, cpu family and model)"
    return f"{cpu.vendor} family {cpu.family} model {cpu.model}"


def ddio_from_config(config, vendor, cpu):
    """DDIO of a root port from its config space CONFIG (bytes, or None when unreadable),
    its PCI VENDOR ("0x8086") and the CPU: on/off only where perfctrlsts_0 is documented."""
    if cpu.vendor != "GenuineIntel":
        return Ddio("unknown", f"unknown (the CPU is {cpu.vendor or 'of no named vendor'}, not Intel: "
                               "no documented register to read)")
    if (cpu.vendor, cpu.family, cpu.model) not in DDIO_DOCUMENTED_CPUS:
        return Ddio("unknown", f"unknown (CPU family {cpu.family} model {cpu.model} is not one where "
                               "perfctrlsts_0 is documented: Xeon Scalable, family 6 model 85)")
    if vendor != INTEL_PCI_VENDOR:
        return Ddio("unknown", f"unknown (the root port's PCI vendor is {vendor or 'unreadable'}, "
                               f"not Intel's {INTEL_PCI_VENDOR})")
    if config is None:
        return Ddio("unknown", "unknown (the root port's config space cannot be read)")
    if len(config) <= UNPRIVILEGED_CONFIG_BYTES:
        return Ddio("unknown", "unknown (the root port's config space past 64 bytes needs root)")
    if len(config) < PERFCTRLSTS_0 + 4:
        return Ddio("unknown", f"unknown (the root port's config space has {len(config)} bytes, "
                               "none at perfctrlsts_0's 0x180)")
    value = int.from_bytes(config[PERFCTRLSTS_0:PERFCTRLSTS_0 + 4], "little")
    allocating = 1 if value & USE_ALLOCATING_FLOW_WR else 0
    no_snoop = 1 if value & NO_SNOOP_OP_WR_EN else 0
    state = "on" if allocating else "off"
    return Ddio(state, f"{state} (perfctrlsts_0=0x{value:08x}: Use_Allocating_Flow_Wr={allocating}, "
                       f"NoSnoopOpWrEn={no_snoop})")


def rdma_devices(sysroot):
    """The RDMA devices' names, or a string saying why there are none."""
    folder = under(sysroot, "/sys/class/infiniband")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return "no RDMA device: no /sys/class/infiniband"
    return names or "no RDMA device: /sys/class/infiniband is empty"


def pci_function(sysroot, dev):
    """The sysfs folder of DEV's PCI function, or None for a software RDMA device."""
    link = under(sysroot, f"/sys/class/infiniband/{dev}/device")
    if dev.startswith(SOFTWARE_RDMA_PREFIXES) or not os.path.exists(link):
        return None
    path = os.path.realpath(link)
    return path if PCI_ADDRESS.fullmatch(os.path.basename(path)) else None


def root_port(function):
    """The PCIe root port above a PCI FUNCTION's folder: the topmost PCI bridge of its
    path (the parent itself unless a switch sits between), or a string saying why none."""
    parent = os.path.dirname(function)
    if not PCI_ADDRESS.fullmatch(os.path.basename(parent)):
        return (f"{os.path.basename(function)} sits on {os.path.basename(parent)}, "
                "not below a PCI root port")
    while PCI_ADDRESS.fullmatch(os.path.basename(os.path.dirname(parent))):
        parent = os.path.dirname(parent)
    return RootPort(os.path.basename(parent), parent)


def ddio_of_device(sysroot, dev, cpu):
    """DDIO of the root port of DEV, as a line naming the device and the port."""
    function = pci_function(sysroot, dev)
    if function is None:
        return f"{dev}: unknown (not a PCI device: {dev} is a software RDMA device)"
    port = root_port(function)
    if isinstance(port, str):
        return f"{dev}: unknown ({port})"
    ddio = ddio_from_config(read_bytes(os.path.join(port.path, "config")),
                            read_text(os.path.join(port.path, "vendor")), cpu)
    return f"{dev} root port {port.name}: {ddio.text}"


def ddio_fact(sysroot, devs, cpu, direct_write):
    if isinstance(devs, str):
        text = f"unknown ({devs})"
    else:
        text = "; ".join(ddio_of_device(sysroot, d, cpu) for d in devs)
    # the run's own declaration, as env.json said before the register was read
    return text + ("; the server declares direct write to PMem" if direct_write else "")


def firmware_fact(sysroot, devs):
    return " ".join(f"{d}={read_text(under(sysroot, f'/sys/class/infiniband/{d}/fw_ver')) or '?'}"
                    for d in devs)


def port_line(dev, port_dir):
    """'mlx5_0/1 ACTIVE 100 Gb/sec (4X EDR) Ethernet' of one port's folder."""
    state = read_text(os.path.join(port_dir, "state")) or "?"
    # "4: ACTIVE": the name says it
    state = state.partition(": ")[2] or state
    rate = read_text(os.path.join(port_dir, "rate")) or "rate ?"
    layer = read_text(os.path.join(port_dir, "link_layer")) or "link layer ?"
    return f"{dev}/{os.path.basename(port_dir)} {state} {rate} {layer}"


def link_fact(sysroot, devs):
    lines = []
    for d in devs:
        ports = sorted(glob.glob(under(sysroot, f"/sys/class/infiniband/{d}/ports/*")),
                       key=lambda p: (len(p), p))
        lines += [port_line(d, p) for p in ports] or [f"{d} no ports"]
    return "; ".join(lines)


def numa_text(value):
    """A sysfs numa_node/target_node value: -1 means the platform does not say."""
    if value is None:
        return "none reported (no numa_node file)"
    return "none reported" if value == "-1" else value


def rnic_numa_fact(sysroot, devs):
    parts = []
    for d in devs:
        if pci_function(sysroot, d) is None:
            parts.append(f"{d}=none (a software RDMA device)")
        else:
            node = read_text(under(sysroot, f"/sys/class/infiniband/{d}/device/numa_node"))
            parts.append(f"{d}={numa_text(node)}")
    return " ".join(parts)


def size_text(n):
    """Bytes as GiB, or as MiB below one GiB (a CXL device of a VM is a few hundred)."""
    n = int(n)
    return gib(n) if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"


def nd_home(folder):
    """Where a DAX device's sysfs folder lies: ' on REGION of BUS, provider P' (CXL for
    the region of a CXL memory device, ACPI.NFIT for an NVDIMM's), or '' when its path
    names no nvdimm bus."""
    path = os.path.realpath(folder)
    found = re.search(r"^(.*/(ndbus[0-9]+))/(region[0-9]+)/", path)
    if not found:
        return ""
    provider = read_text(os.path.join(found.group(1), "provider")) or "unknown"
    memory = "CXL memory, " if provider == "CXL" else ""
    return f", on {memory}{found.group(3)} of {found.group(2)} (provider {provider})"


def devdax_memory(sysroot, name):
    folder = under(sysroot, f"/sys/bus/dax/devices/{name}")
    if not os.path.isdir(folder):
        return f"unknown (device-DAX {name}: no /sys/bus/dax/devices/{name})"
    node = read_text(os.path.join(folder, "target_node"))
    if node is None:
        node = read_text(os.path.join(folder, "numa_node"))
    size = read_text(os.path.join(folder, "size"))
    size = size_text(size) if size and size.isdigit() else "size unknown"
    return f"device-DAX {name}: NUMA node {numa_text(node)}, {size}{nd_home(folder)}"


def unescape_mount(field):
    """/proc/mounts writes a space as \\040 (and tab, newline, backslash likewise)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def mount_of(mounts_text, path):
    """(device, mount point, fstype, options) of the longest mount point holding PATH."""
    best = None
    for line in (mounts_text or "").splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        point = unescape_mount(fields[1])
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) > len(best[1])):
            best = (unescape_mount(fields[0]), point, fields[2], fields[3])
    return best


def file_memory(sysroot, path):
    mount = mount_of(read_text(under(sysroot, "/proc/mounts")), os.path.normpath(path))
    if mount is None:
        return f"unknown (no mount in /proc/mounts holds {path})"
    device, point, fstype, options = mount
    # the option as mounted: dax, dax=always, dax=inode or dax=never
    dax = next((o for o in options.split(",") if o == "dax" or o.startswith("dax=")), "no dax option")
    where = f"file on {point} ({device}, {fstype}, {dax})"
    block = re.fullmatch(r"/dev/(pmem[0-9]+(?:\.[0-9]+)?)(?:p[0-9]+)?", device)
    if not block:
        return f"{where}: not a PMem block device"
    node = read_text(under(sysroot, f"/sys/block/{block.group(1)}/device/numa_node"))
    return f"{where}: {block.group(1)} NUMA node {numa_text(node)}"


def memory_fact(sysroot, mem):
    if not mem:
        return "unknown (no --mem given)"
    if mem == "malloc":
        return "DRAM (malloc; on the NUMA node the server process allocates from)"
    dax = re.fullmatch(r"/dev/(dax[0-9]+\.[0-9]+)", mem)
    if dax:
        return devdax_memory(sysroot, dax.group(1))
    if not mem.startswith("/"):
        return f"unknown ({mem} is neither malloc nor an absolute path)"
    return file_memory(sysroot, mem)


def json_values(text):
    """The JSON values of a tool's output: ndctl may print several objects one after
    another rather than one array."""
    decoder, values, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return values
        value, i = decoder.raw_decode(text, i)
        values.append(value)


def nd_objects(value):
    """Every object naming a device (a region, a namespace, a DAX device) in VALUE, in
    order, however ndctl/daxctl nested them."""
    if isinstance(value, list):
        return [o for v in value for o in nd_objects(v)]
    if not isinstance(value, dict):
        return []
    own = [value] if "dev" in value or "chardev" in value else []
    return own + [o for v in value.values() for o in nd_objects(v)]


def nd_line(obj):
    """One line of a region, namespace or DAX device: name, mode, size, NUMA node."""
    parts = [str(obj.get("dev") or obj.get("chardev"))]
    for key in ("type", "mode"):
        if key in obj:
            parts.append(str(obj[key]))
    if isinstance(obj.get("size"), int):
        parts.append(gib(obj["size"]))
    for key in ("blockdev", "chardev"):
        if key in obj and obj[key] != parts[0]:
            parts.append(f"{key} {obj[key]}")
    for key in ("numa_node", "target_node", "persistence_domain"):
        if key in obj:
            parts.append(f"{key} {obj[key]}")
    return " ".join(parts)


def cxl_objects(value):
    """Every memory device and region in `cxl list`'s JSON, in order, however nested."""
    if isinstance(value, list):
        return [o for v in value for o in cxl_objects(v)]
    if not isinstance(value, dict):
        return []
    own = [value] if ("memdev" in value and "decoder" not in value) or "region" in value else []
    return own + [o for v in value.values() for o in cxl_objects(v)]


def cxl_line(obj):
    """One line of a CXL memory device (its persistent and volatile capacity) or region
    (size, interleave, state)."""
    if "region" in obj:
        parts = [str(obj["region"])]
        for key in ("type",):
            if key in obj:
                parts.append(str(obj[key]))
        if isinstance(obj.get("size"), int):
            parts.append(size_text(obj["size"]))
        if "interleave_ways" in obj:
            parts.append(f"{obj['interleave_ways']}-way")
        if "decode_state" in obj:
            parts.append(str(obj["decode_state"]))
        return " ".join(parts)
    parts = [str(obj["memdev"])]
    for key, what in (("pmem_size", "persistent"), ("ram_size", "volatile")):
        if isinstance(obj.get(key), int) and obj[key]:
            parts.append(f"{what} {size_text(obj[key])}")
    if "host" in obj:
        parts.append(f"host {obj['host']}")
    return " ".join(parts)


def tool_fact(sysroot, argv, package, objects=None, line=None):
    """A one-line summary of ndctl/daxctl's JSON listing (or cxl's: OBJECTS and LINE
    pick and print its entries), or what kept it from being read."""
    if os.path.realpath(sysroot) != "/":
        return "not read (--sysroot)"
    if shutil.which(argv[0]) is None:
        return f"{argv[0]} is not installed (package {package})"
    command = " ".join(argv)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                              timeout=TOOL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"{command} did not finish in {TOOL_TIMEOUT_S} s"
    except (OSError, subprocess.SubprocessError) as e:
        return f"{command} could not run: {e}"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"{command} failed (exit {done.returncode}: {why})"
    try:
        found = (objects or nd_objects)(json_values(done.stdout))
    except ValueError as e:
        return f"{command} printed no JSON ({e})"
    return "; ".join((line or nd_line)(o) for o in found) or f"none ({command} lists nothing)"


def governor_fact(sysroot):
    files = glob.glob(under(sysroot, "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
    counts = collections.Counter(read_text(f) or "?" for f in files)
    if not counts:
        return "none (no cpufreq: a VM or a fixed-frequency platform)"
    if len(counts) == 1:
        (name, n), = counts.items()
        return f"{name} (all {n} CPUs)" if n > 1 else f"{name} (1 CPU)"
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda c: (-c[1], c[0])))


def facts(sysroot="/", mem="", direct_write=False):
    """The platform's facts, in the order env.json lists them."""
    cpu = cpu_from_cpuinfo(read_text(under(sysroot, "/proc/cpuinfo")))
    devs = rdma_devices(sysroot)
    none = f"unknown ({devs})" if isinstance(devs, str) else None
    return {
        "cpu model": cpu_text(cpu),
        "DDIO": ddio_fact(sysroot, devs, cpu, direct_write),
        "RNIC firmware": none or firmware_fact(sysroot, devs),
        "RNIC link": none or link_fact(sysroot, devs),
        "RNIC NUMA node": none or rnic_numa_fact(sysroot, devs),
        "server memory placement": memory_fact(sysroot, mem),
        "PMem regions and namespaces": tool_fact(sysroot, ["ndctl", "list", "-RN"], "ndctl"),
        "device-DAX devices": tool_fact(sysroot, ["daxctl", "list"], "daxctl"),
        "CXL memory devices and regions": tool_fact(sysroot, ["cxl", "list", "-M", "-R"], "ndctl",
                                                    cxl_objects, cxl_line),
        "CPU frequency governor": governor_fact(sysroot),
    }


def cmd_platform(args):
    print(json.dumps(facts(args.sysroot, args.mem, args.direct_write == "1"), indent=1))
