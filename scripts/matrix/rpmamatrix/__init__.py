# SPDX-License-Identifier: BSD-3-Clause
"""The matrix runner's Python side, one module a job (docs/matrix.md lists them);
scripts/matrix/matrix is its command line. Python 3 standard library only."""
