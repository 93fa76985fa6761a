/*
 * The PHP versions the worker cores compile against, and what differs
 * between them: every difference in what the cores call, here and only
 * here, by PHP_VERSION_ID (docs/builds.md#versions).
 *
 * Compiled here (make core-compat-check): 8.0.10, 8.1.0RC1, 8.2.32.
 * Written from php-src's UPGRADING.INTERNALS, not compiled (no source of
 * them on this machine): 8.3, 8.4, 8.5, master (8.6.0-dev).
 *
 * The daemon refuses a build outside PHPCMP_PHP_OLDEST..PHPCMP_PHP_NEWEST
 * before compiling its core (build_php_version_check, engine/build.c, keeps
 * the same two numbers); the #error below says the same to anyone
 * compiling by hand.
 */
#ifndef PHPCMP_COMPAT_H
#define PHPCMP_COMPAT_H

#include <php.h>
#include <zend_compile.h>
#include <zend_constants.h>

#define PHPCMP_PHP_OLDEST 80000 /* 8.0.0 */
#define PHPCMP_PHP_NEWEST 80699 /* the last 8.6 (master today) */

#if PHP_VERSION_ID < PHPCMP_PHP_OLDEST
#error "PHP older than 8.0: phpcmp's cores support 8.0 and newer (docs/builds.md#versions)"
#elif PHP_VERSION_ID > PHPCMP_PHP_NEWEST
#error "PHP newer than 8.6: phpcmp's cores were never compiled against it (docs/builds.md#versions)"
#endif

/*
 * zend_compile_string: 8.2 added the position (php-src 8.2's
 * ZEND_COMPILE_POSITION_*); before, a string was always compiled as code
 * after an open tag, which is the position the cores want.
 */
static inline zend_op_array *phpcmp_compile_string(zend_string *src, const char *name)
{
#if PHP_VERSION_ID >= 80200
	return zend_compile_string(src, name, ZEND_COMPILE_POSITION_AFTER_OPEN_TAG);
#else
	return zend_compile_string(src, name);
#endif
}

/*
 * zend_error_cb's file: a zend_string from 8.1 (NULL when unknown), a C
 * string in 8.0.  PG(last_error_file) follows: a zend_string from 8.1, a
 * malloc'd C string in 8.0 (main.c strdup()s and free()s it).
 */
#if PHP_VERSION_ID >= 80100
typedef zend_string *phpcmp_error_file;
#define PHPCMP_ERROR_FILE_CSTR(f) ZSTR_VAL(f) /* f not NULL */
#define PHPCMP_ERROR_FILE_UNKNOWN ZSTR_KNOWN(ZEND_STR_UNKNOWN_CAPITALIZED)

static inline int phpcmp_last_error_file_is(phpcmp_error_file f)
{
	return PG(last_error_file) != NULL && zend_string_equals(PG(last_error_file), f);
}

static inline void phpcmp_last_error_file_set(phpcmp_error_file f)
{
	if (PG(last_error_file))
		zend_string_release(PG(last_error_file));
	PG(last_error_file) = zend_string_copy(f);
}
#else
typedef const char *phpcmp_error_file;
#define PHPCMP_ERROR_FILE_CSTR(f) (f)
#define PHPCMP_ERROR_FILE_UNKNOWN "Unknown"

static inline int phpcmp_last_error_file_is(phpcmp_error_file f)
{
	return PG(last_error_file) != NULL && strcmp(PG(last_error_file), f) == 0;
}

static inline void phpcmp_last_error_file_set(phpcmp_error_file f)
{
	free(PG(last_error_file));
	PG(last_error_file) = strdup(f);
}
#endif

/*
 * zend_file_handle.primary_script: 8.1 (the file handle rework: handles are
 * the caller's to destroy, and say whether they are the main script).  In
 * 8.0 php_execute_script takes the handle as the main script anyway, and
 * destroys it itself (zend_destroy_file_handle after it does nothing).
 */
static inline void phpcmp_file_handle_primary(zend_file_handle *fh)
{
#if PHP_VERSION_ID >= 80100
	fh->primary_script = 1;
#else
	(void)fh;
#endif
}

/* Enums: 8.1 (zend_enum.h).  Without them the generator cannot declare
 * its classes (its declarations have enums). */
#if PHP_VERSION_ID >= 80100
#define PHPCMP_HAVE_ENUMS 1
#else
#define PHPCMP_HAVE_ENUMS 0
#endif

/*
 * exit: an opcode of its own (ZEND_EXIT) until 8.4, where exit() became a
 * function (RFC exit-as-function, php-src PHP-8.4): `exit;` and `die()`
 * compile to a call to \exit.  Whether opline leaves the script that way.
 */
static inline int phpcmp_opline_exits(const zend_op_array *op, const zend_op *opline)
{
#if PHP_VERSION_ID >= 80400
	if (opline->opcode != ZEND_INIT_FCALL && opline->opcode != ZEND_INIT_FCALL_BY_NAME)
		return 0;
	if (opline->op2_type != IS_CONST)
		return 0;
	const zval *name = RT_CONSTANT(opline, opline->op2);
	(void)op;
	return Z_TYPE_P(name) == IS_STRING && zend_string_equals_literal_ci(Z_STR_P(name), "exit");
#else
	(void)op;
	return opline->opcode == ZEND_EXIT;
#endif
}

/* CONST_CS: always 0 since 8.0 (constants are case-sensitive); defined
 * here should a PHP stop defining it. */
#ifndef CONST_CS
#define CONST_CS 0
#endif

#endif
