/*
 * Replays a fuzz harness's inputs without libFuzzer, as a TAP unit test:
 * every file of fuzz/corpus/NAME (the seeds) and fuzz/regressions/NAME
 * (inputs that once crashed a harness: they must stay fixed).  A harness
 * aborts on a broken property, which fails the test.  Run from the
 * repository's top folder (make unit-test does).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_NAME
#error "build with -DFUZZ_NAME=\"name\""
#endif

static int n;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[4096];
	size_t count = 0;

	if (!d)
		return; /* no regressions yet */
	while ((e = readdir(d)) != NULL && count < sizeof(names) / sizeof(names[0]))
		if (e->d_name[0] != '.')
			names[count++] = strdup(e->d_name);
	closedir(d);
	qsort(names, count, sizeof(names[0]), cmp);
	for (size_t i = 0; i < count; i++) {
		char path[4096];
		FILE *f;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if ((f = fopen(path, "rb")) != NULL) {
			static uint8_t buf[1 << 20];
			size_t len = fread(buf, 1, sizeof(buf), f);
			fclose(f);
			/* A copy of exactly len bytes: reading past it is an error. */
			uint8_t *copy = malloc(len ? len : 1);
			memcpy(copy, buf, len);
			LLVMFuzzerTestOneInput(copy, len);
			free(copy);
			printf("ok %d - %s\n", ++n, path);
		} else {
			printf("not ok %d - %s: cannot read\n", ++n, path);
		}
		free(names[i]);
	}
}

int main(void)
{
	replay_dir("fuzz/corpus/" FUZZ_NAME);
	replay_dir("fuzz/regressions/" FUZZ_NAME);
#ifdef REPLAY_EXTRA_DIR
	replay_dir(REPLAY_EXTRA_DIR); /* fuzz/coverage.sh: the working corpus too */
#endif
	printf("1..%d\n", n);
	return n > 0 ? 0 : 1;
}
