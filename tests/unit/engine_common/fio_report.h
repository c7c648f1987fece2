/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fio_report.h -- the engines' unit tests' stand-in for what reaches fio
 * (engines/common/report.h: fail, note, debug, stop_requested): linked into
 * every tests/unit/engine_<piece>/ binary, it records instead of reporting.
 */
#ifndef ENGINE_TEST_FIO_REPORT_H
#define ENGINE_TEST_FIO_REPORT_H

#include <stdbool.h>

#include "common/optparse.h"

struct fio_report {
	unsigned fails;			/* rpmafio_fail() calls */
	int err;			/* the first failure's errno */
	char msg[RPMAFIO_ERR_LEN];	/* the first failure's message */
	unsigned notes;			/* rpmafio_note() calls */
	char note[RPMAFIO_ERR_LEN];	/* the last note */
	bool stop_requested;		/* what rpmafio_stop_requested() answers */
};

/* what the engine code under test reported; a test zeroes it in its set-up */
extern struct fio_report fio_report;

#endif /* ENGINE_TEST_FIO_REPORT_H */
