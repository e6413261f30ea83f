// dalshim.hpp -- the C++ API of the shim, all in one include.
#pragma once
#include "dalshim/codec.hpp"
#include "dalshim/database.hpp"
#include "dalshim/error.hpp"
#include "dalshim/library.hpp"
#include "dalshim/pending.hpp"
#include "dalshim/query.hpp"
#include "dalshim/response.hpp"
#include "dalshim/value.hpp"
