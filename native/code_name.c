/* dal_code_name (dal.h): the names of the DAL_* result codes, in C so that
** it works without the Go side and answers from static storage. */
#include "dal.h"

const char *dal_code_name(int32_t code) {
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
    case DAL_E_LIMIT: return "DAL_E_LIMIT";
    default: return "DAL_E_UNKNOWN";
  }
}
