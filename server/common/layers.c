/* The sandbox layers' names (layers.h), in bit order. */
#include "layers.h"

const char *sandbox_layer_name(unsigned i)
{
	static const char *const names[SANDBOX_NLAYERS] = {
		"netns",
		"caps",
		"seccomp",
		"landlock",
		"rlimits",
		"php",
	};

	return i < SANDBOX_NLAYERS ? names[i] : "";
}
