#include "dalshim/error.hpp"

#include "dal.h"

namespace dalshim {

const char* code_name(int32_t code) noexcept {
  switch (code) {
    case DAL_OK: return "DAL_OK";
    case DAL_E_HANDLE: return "DAL_E_HANDLE";
    case DAL_E_NULL: return "DAL_E_NULL";
    case DAL_E_DECODE: return "DAL_E_DECODE";
    case DAL_E_TOO_LARGE: return "DAL_E_TOO_LARGE";
    case DAL_E_REQUEST: return "DAL_E_REQUEST";
    case DAL_E_DATABASE: return "DAL_E_DATABASE";
    case DAL_E_MISUSE: return "DAL_E_MISUSE";
    case DAL_E_INTERNAL: return "DAL_E_INTERNAL";
    case DAL_E_NOMEM: return "DAL_E_NOMEM";
    case DAL_E_OPTIONS: return "DAL_E_OPTIONS";
    case DALSHIM_E_LOAD: return "DALSHIM_E_LOAD";
    case DALSHIM_E_VERSION: return "DALSHIM_E_VERSION";
    case DALSHIM_E_DOUBLE_FREE: return "DALSHIM_E_DOUBLE_FREE";
    case DALSHIM_E_FOREIGN_POINTER: return "DALSHIM_E_FOREIGN_POINTER";
    case DALSHIM_E_CLOSED: return "DALSHIM_E_CLOSED";
    case DALSHIM_E_SQL: return "DALSHIM_E_SQL";
    case DALSHIM_E_RESPONSE: return "DALSHIM_E_RESPONSE";
    case DALSHIM_E_ARG: return "DALSHIM_E_ARG";
    case DALSHIM_E_LOADED: return "DALSHIM_E_LOADED";
    default: return "unknown code";
  }
}

static_assert(DALSHIM_E_HANDLE == DAL_E_HANDLE && DALSHIM_E_OPTIONS == DAL_E_OPTIONS &&
              DALSHIM_E_MISUSE == DAL_E_MISUSE && DALSHIM_E_NULL == DAL_E_NULL);

}  // namespace dalshim
