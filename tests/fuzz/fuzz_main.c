/* fuzz_main.c: the libFuzzer driver for one target of fuzz_targets.c.
 * Built by tests/fuzz/Makefile once per target, with -DFUZZ_TARGET=name
 * (links_html, links_text, url, robots, sitemap, pagedir, warc) and
 * -fsanitize=fuzzer,address,undefined. An entry function that reports a
 * broken invariant aborts, so libFuzzer keeps the input as a crash.
 * Every driver links web/warc.c too, so the crawler-layer targets are
 * all in the table. */
#define FUZZ_WITH_CRAWLER 1
#include "fuzz_targets.c"

#define FUZZ_STR2(x) #x
#define FUZZ_STR(x) FUZZ_STR2(x)

static fuzz_fn fuzz_target;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *want = FUZZ_STR(FUZZ_TARGET);
  for (size_t i = 0; i < sizeof(fuzz_targets) / sizeof(fuzz_targets[0]); i++)
    if (strcmp(fuzz_targets[i].name, want) == 0)
      fuzz_target = fuzz_targets[i].fn;
  if (fuzz_target == NULL || fuzz_setup() != 0) {
    fprintf(stderr, "fuzz: cannot set up target '%s'\n", want);
    exit(1);
  }
  atexit(fuzz_teardown);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (fuzz_target(data, size) != 0)
    abort();
  return 0;
}
