/*
 * phpcmp serve's settings: the command line and the config file
 * (docs/config.md), read into the engine's struct config (engine.h), the
 * HTTP server's struct http_config (http.h) and the builds to find.  A bad
 * value is said on stderr with its exact reason.
 */
#ifndef PHPCMP_CONFIG_H
#define PHPCMP_CONFIG_H

#include "engine.h"
#include "http.h"

/* Strings read from a config file live until exit. */
struct serve_strings {
	char *s[256];
	int n;
};

struct serve_build_arg {
	const char *name, *prefix;
	int asan_of; /* an --asan flavour: 1 + the index of its build; 0 for --build */
};

struct serve_opts {
	struct config cfg;
	struct http_config http;
	const char *config_file;
	const char *base_name; /* --base NAME: that build is the base; NULL: the first */
	int nbuild_args;
	struct serve_build_arg build_args[2 * MAX_BUILDS]; /* --build, then the --asan flavours */
	int nasan_args;
	struct serve_build_arg asan_args[MAX_BUILDS]; /* --asan NAME=PREFIX, by build name */
	struct serve_strings strings;
	int nini_args; /* --ini NAME:k=v, by build name */
	const char *ini_args[MAX_BUILDS * BUILD_MAX_INI];
};

/* argv (without "serve") and the --config file into o (serve_opts_release it
 * either way): 0, or -1 with the reason said. */
int serve_opts_parse(struct serve_opts *o, int argc, char **argv);
void serve_opts_release(struct serve_opts *o);

#endif
