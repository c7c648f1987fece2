# SPDX-License-Identifier: BSD-3-Clause
"""The parts of scripts/softroce-vm that are programming rather than driving tools.

cli        the one command-line parser of every command (its output is shell
           code that the bash side evals), with the settings the commands share
usage      the --help texts
vmlinux    the uncompressed kernel (ELF) carved out of a compressed vmlinuz
modules    the kernel modules an initramfs needs, in load order (modules.dep)

tool.py (next to this package) is the command the bash side calls.
Standard library only: it runs with Debian's python3.
"""
