// SQLite is used directly from Swift; this file only gives the target something to compile.
#include "CSQLite.h"
