/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_defaults.h -- default values for the ${VARIABLES} of the job files in jobs/.
 *
 * fio substitutes ${NAME} with the environment variable NAME and an unset one
 * with an empty string (then fails on e.g. "bs="). fio loads an engine given
 * on the command line (--ioengine=external:build/librpma_apm.so) while it
 * parses the command line, i.e. before it reads the job file; a server job
 * file loads its engine while fio parses its [global] section (ioengine= and
 * mode=server there), before the [server] section is read. When the engine
 * is loaded, a constructor (fio/engine.c) sets every variable of the table below that
 * is not set yet (setenv(..., 0)): a value in the environment always wins.
 *
 * SERVER_IP has no default address (an address belongs to a testbed, not to
 * the engine): unset, it is RPMAFIO_SERVER_IP_UNSET, which stops fio while it
 * parses serverip= with a message naming SERVER_IP (an empty value would stop
 * fio before the engine could say why).
 */
#ifndef RPMAFIO_ENV_DEFAULTS_H
#define RPMAFIO_ENV_DEFAULTS_H

struct rpmafio_env_default {
	const char *name;
	const char *value;
	const char *meaning;
};

/* terminated by {NULL, NULL, NULL} */
extern const struct rpmafio_env_default rpmafio_env_defaults[];

/* setenv() every variable of the table not set yet */
void rpmafio_env_apply_defaults(void);

#endif /* RPMAFIO_ENV_DEFAULTS_H */
