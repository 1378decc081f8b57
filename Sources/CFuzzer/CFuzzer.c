// Declarations only: see CFuzzer.h.
#include "CFuzzer.h"
