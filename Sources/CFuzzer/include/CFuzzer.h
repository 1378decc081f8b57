#ifndef CFUZZER_H
#define CFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver for programs with a main of their own (SwiftPM gives every executable one). Defined only when
/// linking with -sanitize=fuzzer; referenced only in `FUZZING` builds.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
