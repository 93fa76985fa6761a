/*
 * The workers' sandbox layers (docs/sandbox.md), one list for both sides:
 * the daemon names them in --sandbox and on the loader's command line
 * (server/daemon/engine/confine.c), the loader applies them (server/worker/sandbox.c).
 */
#ifndef PHPCMP_LAYERS_H
#define PHPCMP_LAYERS_H

enum sandbox_layer {
	SANDBOX_NETNS = 1 << 0,
	SANDBOX_CAPS = 1 << 1,
	SANDBOX_SECCOMP = 1 << 2,
	SANDBOX_LANDLOCK = 1 << 3,
	SANDBOX_RLIMITS = 1 << 4,
	SANDBOX_PHP = 1 << 5,
};
#define SANDBOX_NLAYERS 6
#define SANDBOX_ALL ((1u << SANDBOX_NLAYERS) - 1)
/* A measuring worker's loader sets these up before it execs valgrind. */
#define SANDBOX_BEFORE_EXEC (SANDBOX_NETNS | SANDBOX_CAPS | SANDBOX_LANDLOCK)

/* The name of layer bit i (0 .. SANDBOX_NLAYERS - 1): "netns", "caps"... */
const char *sandbox_layer_name(unsigned i);

#endif
