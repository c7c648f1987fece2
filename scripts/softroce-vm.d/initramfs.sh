# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/initramfs.sh -- the guest's initramfs: static busybox, the
# kernel modules (in the load order tool.py modules resolves from
# modules.dep) and stage 1, /init.  Rebuilt whenever what it is built from
# changes (its stamp).  Sourced by scripts/softroce-vm.

# Bump when the initramfs layout changes, to force a rebuild.
INITRAMFS_FORMAT=2

# Kernel modules put into the initramfs, loaded in this order (after their
# dependencies from modules.dep).  A leading '?' marks a module that may be
# built in or missing.  The crc32/crc32c algorithms are requested by name at
# run time (not a symbol dependency), so they must come first.
MODULES_BASE=(
	'?crc32_generic' '?crc32-pclmul' # rdma_rxe: "failed to init crc32 algorithm" without them
	'?virtio_pci'                    # built in since 6.12
	9pnet_virtio 9p overlay
	dummy
	'?virtio_net' # --nodes: the NIC on the run's network
	rdma_rxe ib_uverbs rdma_ucm
	'?crc32c_generic' '?crc32c-intel' '?libcrc32c' # ext4 checksums, siw's CRC
)
# siw.ko is there only once --transport iwarp built it (siw.sh)
MODULES_IWARP=('?siw')
MODULES_PMEM=(
	nfit nd_pmem dax_pmem device_dax
	'?nd_e820' # after nfit: the NVDIMM is region0; memmap=SIZE!ADDR (a node's canary) then region1
	ext4
)
# --cxl: the CXL bus and a type-3 device's persistent capacity as an nvdimm region
# (the core is built in on Debian's 6.1; the pmem group gives nd_pmem and device_dax)
MODULES_CXL=('?cxl_core' '?cxl_port' '?cxl_acpi' '?cxl_pci' '?cxl_mem' '?cxl_pmem')
# What /init (busybox sh) calls.
APPLETS=(sh cat chroot cut dmesg echo hostname insmod mkdir mount reboot sleep sync umount)

# What the initramfs of kernel V is built from: rebuilt when this changes.
initramfs_stamp() { # V
	local busybox
	busybox=$(find_tool busybox) || busybox=/bin/busybox
	{
		echo "format $INITRAMFS_FORMAT kver $KVER"
		echo "base ${MODULES_BASE[*]}"
		echo "pmem ${MODULES_PMEM[*]}"
		echo "cxl ${MODULES_CXL[*]}"
		echo "iwarp ${MODULES_IWARP[*]}"
		stat -c '%s %Y' "$(siw_ko "$1")" 2>/dev/null || true
		sha256sum "$PARTS/init" 2>/dev/null || true
		stat -L -c '%s %Y' "$busybox" 2>/dev/null || true
	} | sha256sum | cut -d' ' -f1
}

initramfs_current() { # V
	local dir
	dir=$(kernel_dir "$1")
	[[ -f $dir/initramfs.img && -f $dir/initramfs.stamp ]] &&
		[[ $(<"$dir/initramfs.stamp") == "$(initramfs_stamp "$1")" ]]
}

ensure_initramfs() { # V
	if ! initramfs_current "$1"; then
		build_initramfs "$1" # (not after ||: set -e must hold in there)
	fi
}

# A static busybox (the initramfs has no libraries) -> its path.
static_busybox() {
	local busybox
	busybox=$(find_tool busybox) || die "busybox not found: install the Debian package 'busybox-static'"
	[[ $(ldd "$busybox" 2>&1 || true) == *'not a dynamic executable'* ]] ||
		die "$busybox is not statically linked: install the Debian package 'busybox-static'"
	echo "$busybox"
}

# The initramfs' folders, and busybox with the applets /init calls.
stage_busybox() { # BUSYBOX STAGING
	local a
	mkdir -p "$2"/{bin,dev,proc,sys,lower,upper,newroot,ctl,modules,lib/modules}
	cp "$1" "$2/bin/busybox"
	for a in "${APPLETS[@]}"; do
		ln -s busybox "$2/bin/$a"
	done
}

# Copy module MD/REL into DEST decompressed: busybox insmod loads only plain .ko files.
copy_module() { # MD REL DEST
	local base=${2##*/}
	case $base in
	*.ko.xz) xz -dc "$1/$2" >"$3/${base%.xz}" ;;
	*.ko.zst) zstd -qdc "$1/$2" >"$3/${base%.zst}" ;;
	*.ko.gz) gzip -dc "$1/$2" >"$3/${base%.gz}" ;;
	*) cp "$1/$2" "$3/$base" ;;
	esac
}

# The modules and their dependencies into STAGING/lib/modules, their load
# order into STAGING/modules/{base,pmem,cxl,iwarp}.list (read by /init).
stage_modules() { # MD STAGING
	local md=$1 st=$2 order group rel base
	order=$("$TOOL" modules "$md" --group base "${MODULES_BASE[@]}" --group pmem "${MODULES_PMEM[@]}" \
		--group cxl "${MODULES_CXL[@]}" --group iwarp "${MODULES_IWARP[@]}") || exit
	: >"$st/modules/base.list"
	: >"$st/modules/pmem.list"
	: >"$st/modules/cxl.list"
	: >"$st/modules/iwarp.list"
	while read -r group rel; do
		[[ -n $rel ]] || continue
		copy_module "$md" "$rel" "$st/lib/modules"
		base=${rel##*/}
		echo "${base%.ko*}.ko" >>"$st/modules/$group.list"
	done <<<"$order"
}

build_initramfs() { # V
	local v=$1 dir md st busybox
	dir=$(kernel_dir "$v")
	load_kernel_env "$v" || die "kernel $v is not in the cache: run \`scripts/$PROG setup --kernel $v\` first"
	md=$dir/root/lib/modules/$KVER
	busybox=$(static_busybox) || exit
	need_tool cpio cpio
	need_tool xz xz-utils
	[[ -f $md/modules.dep ]] || die "$md/modules.dep missing: run \`scripts/$PROG clean --kernel $v\` and setup again"

	note "kernel $v: building the initramfs"
	st=$(mktemp -d "$dir/.initramfs.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$st'" EXIT
	stage_busybox "$busybox" "$st"
	stage_modules "$md" "$st"
	install -m 0755 "$PARTS/init" "$st/init"

	(cd "$st" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
		>"$dir/initramfs.img.tmp"
	mv "$dir/initramfs.img.tmp" "$dir/initramfs.img"
	initramfs_stamp "$v" >"$dir/initramfs.stamp"
	rm -rf "$st"
	trap - EXIT
	note "kernel $v: initramfs $(du -h "$dir/initramfs.img" | cut -f1)," \
		"modules: $(mod_summary "$dir")"
}

mod_summary() { # DIR -- the module load order, from the image itself
	cpio -i --to-stdout --quiet modules/base.list modules/pmem.list modules/cxl.list \
		modules/iwarp.list <"$1/initramfs.img" |
		tr '\n' ' '
}
