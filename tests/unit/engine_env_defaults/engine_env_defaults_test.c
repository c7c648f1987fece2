/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_env_defaults_test.c -- every ${VARIABLE} of the job files in jobs/ has a
 * default in the engines' table, and the defaults never override the environment.
 * Runs from the project's root (make test-unit does).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <cmocka.h>

#include "common/env_defaults.h"

static const struct rpmafio_env_default *find(const char *name, size_t len)
{
	for (const struct rpmafio_env_default *d = rpmafio_env_defaults; d->name; d++)
		if (strlen(d->name) == len && strncmp(d->name, name, len) == 0)
			return d;
	return NULL;
}

/* check every ${NAME} of one file; returns how many it found */
static int check_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0, found = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *hash = strchr(line, '#'); /* comments may mention variables freely */
		if (hash)
			*hash = '\0';
		for (char *p = strstr(line, "${"); p; p = strstr(p + 2, "${")) {
			char *end = strchr(p, '}');
			assert_non_null(end);
			if (!find(p + 2, (size_t)(end - p - 2)))
				fail_msg("%s:%d: ${%.*s} has no default in engines/common/env_defaults.c",
					path, lineno, (int)(end - p - 2), p + 2);
			found++;
		}
	}
	fclose(f);
	return found;
}

static void job_files_have_defaults(void **state)
{
	(void)state;
	glob_t g;
	int files = 0, vars = 0;
	assert_int_equal(glob("jobs/*.fio", 0, NULL, &g), 0);
	(void) glob("jobs/*.inc", GLOB_APPEND, NULL, &g); /* there may be none */
	for (size_t i = 0; i < g.gl_pathc; i++) {
		vars += check_file(g.gl_pathv[i]);
		files++;
	}
	globfree(&g);
	assert_true(files >= 6); /* apm-server, write, randwrite, read, randread, rw */
	assert_true(vars > 0);
}

static void table_is_sane(void **state)
{
	(void)state;
	int n = 0;
	for (const struct rpmafio_env_default *d = rpmafio_env_defaults; d->name; d++, n++) {
		assert_true(d->value[0] != '\0'); /* an empty value is what fio chokes on */
		assert_non_null(d->meaning);
		for (const struct rpmafio_env_default *e = d + 1; e->name; e++)
			assert_string_not_equal(d->name, e->name);
	}
	assert_true(n > 5);
}

static void environment_wins(void **state)
{
	(void)state;
	assert_int_equal(setenv("BS", "1m", 1), 0);
	assert_int_equal(unsetenv("IODEPTH"), 0);
	rpmafio_env_apply_defaults();
	assert_string_equal(getenv("BS"), "1m");
	assert_string_equal(getenv("IODEPTH"), find("IODEPTH", 7)->value);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(job_files_have_defaults),
		cmocka_unit_test(table_is_sane),
		cmocka_unit_test(environment_wins),
	};
	return cmocka_run_group_tests_name("engine_env_defaults", tests, NULL, NULL);
}
