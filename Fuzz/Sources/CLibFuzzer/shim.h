#ifndef CLIBFUZZER_SHIM_H
#define CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, linked by `-sanitize=fuzzer` (libclang_rt.fuzzer). Declared here because
// libFuzzer ships no header: SwiftPM links every Swift executable with `main` renamed to the
// module's own entry point, so the fuzz targets keep their `@main` and hand their argv to this
// driver instead of relying on libFuzzer's `main`. Nothing calls it unless built with FUZZING.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
