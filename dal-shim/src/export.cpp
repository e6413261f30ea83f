// export.cpp -- the translation unit of libdalshim.so itself.  Everything
// lives in dalshim_core (linked whole); the exported surface is exactly the
// functions marked DALSHIM_API in dalshim.h (plus dalmon_* from the monitor
// when it is built), since dalshim_core is compiled with -fvisibility=hidden.
#include "dalshim.h"
