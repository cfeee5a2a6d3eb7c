/* libfuzzer_main.c: runs a file-based fuzz harness (tools/fuzz/README.md: main(argc, argv) over
 * the files named in argv) under clang's libFuzzer, for machines without AFL++. The harness is
 * compiled with -Dmain=fuzz_harness_main; each input is written to a scratch file (in /dev/shm
 * when there is one) and handed to it as argv[1]; an abort() in an oracle is libFuzzer's crash.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int fuzz_harness_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[256];
    if (path[0] == '\0')
        snprintf(path, sizeof path, "%s/archsim-fuzz-input.%d",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();                 /* cannot write the scratch file: no fuzzing is possible */
    char name[] = "harness";
    char *argv[] = { name, path, NULL };
    (void)fuzz_harness_main(2, argv);
    unlink(path);
    return 0;
}
