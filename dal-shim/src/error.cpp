// error.cpp -- dalshim_code_name(), and the compile-time proof that no code
// number means two things inside libdalshim.so.
//
// libdalshim.so exports three code families: the DAL's DAL_E_* (dal.h,
// passed through by every dalshim_* call and repeated as DALSHIM_E_HANDLE
// .. DALSHIM_E_LIMIT), the shim's own DALSHIM_E_* and the monitor's
// DALMON_E_* (dalmonitor.h).  Every code of the three is in kCodes with its
// name; kCodes is checked at compile time so that two entries with the same
// number have the same name, i.e. the same meaning.
#include <cstdint>

#include "dal.h"
#include "dalmonitor.h"
#include "dalshim.h"

namespace {

struct CodeName {
  int32_t code;
  const char* name;
};

// DALSHIM_E_HANDLE..DALSHIM_E_LIMIT are dal.h's codes under the shim's
// prefix: one meaning, named by the DAL's name.
constexpr CodeName kCodes[] = {
    {DAL_OK, "DAL_OK"},
    {DAL_E_HANDLE, "DAL_E_HANDLE"},
    {DAL_E_NULL, "DAL_E_NULL"},
    {DAL_E_DECODE, "DAL_E_DECODE"},
    {DAL_E_TOO_LARGE, "DAL_E_TOO_LARGE"},
    {DAL_E_REQUEST, "DAL_E_REQUEST"},
    {DAL_E_DATABASE, "DAL_E_DATABASE"},
    {DAL_E_MISUSE, "DAL_E_MISUSE"},
    {DAL_E_INTERNAL, "DAL_E_INTERNAL"},
    {DAL_E_NOMEM, "DAL_E_NOMEM"},
    {DAL_E_OPTIONS, "DAL_E_OPTIONS"},
    {DAL_E_LIMIT, "DAL_E_LIMIT"},
    {DALSHIM_OK, "DAL_OK"},
    {DALSHIM_E_HANDLE, "DAL_E_HANDLE"},
    {DALSHIM_E_NULL, "DAL_E_NULL"},
    {DALSHIM_E_DECODE, "DAL_E_DECODE"},
    {DALSHIM_E_TOO_LARGE, "DAL_E_TOO_LARGE"},
    {DALSHIM_E_REQUEST, "DAL_E_REQUEST"},
    {DALSHIM_E_DATABASE, "DAL_E_DATABASE"},
    {DALSHIM_E_MISUSE, "DAL_E_MISUSE"},
    {DALSHIM_E_INTERNAL, "DAL_E_INTERNAL"},
    {DALSHIM_E_NOMEM, "DAL_E_NOMEM"},
    {DALSHIM_E_OPTIONS, "DAL_E_OPTIONS"},
    {DALSHIM_E_LIMIT, "DAL_E_LIMIT"},
    {DALSHIM_E_LOAD, "DALSHIM_E_LOAD"},
    {DALSHIM_E_VERSION, "DALSHIM_E_VERSION"},
    {DALSHIM_E_DOUBLE_FREE, "DALSHIM_E_DOUBLE_FREE"},
    {DALSHIM_E_FOREIGN_POINTER, "DALSHIM_E_FOREIGN_POINTER"},
    {DALSHIM_E_CLOSED, "DALSHIM_E_CLOSED"},
    {DALSHIM_E_SQL, "DALSHIM_E_SQL"},
    {DALSHIM_E_RESPONSE, "DALSHIM_E_RESPONSE"},
    {DALSHIM_E_ARG, "DALSHIM_E_ARG"},
    {DALSHIM_E_LOADED, "DALSHIM_E_LOADED"},
    {DALMON_OK, "DAL_OK"},
    {DALMON_E_RUN, "DALMON_E_RUN"},
    {DALMON_E_NULL, "DALMON_E_NULL"},
    {DALMON_E_PARAMS, "DALMON_E_PARAMS"},
    {DALMON_E_STATE, "DALMON_E_STATE"},
    {DALMON_E_RANGE, "DALMON_E_RANGE"},
    {DALMON_E_IO, "DALMON_E_IO"},
    {DALMON_E_INTERNAL, "DALMON_E_INTERNAL"},
    {DALMON_E_NOMEM, "DALMON_E_NOMEM"},
#ifdef DALMON_E_LIMIT
    {DALMON_E_LIMIT, "DALMON_E_LIMIT"},
#endif
};

static_assert(DALSHIM_E_HANDLE == DAL_E_HANDLE && DALSHIM_E_NULL == DAL_E_NULL && DALSHIM_E_DECODE == DAL_E_DECODE &&
                  DALSHIM_E_TOO_LARGE == DAL_E_TOO_LARGE && DALSHIM_E_REQUEST == DAL_E_REQUEST &&
                  DALSHIM_E_DATABASE == DAL_E_DATABASE && DALSHIM_E_MISUSE == DAL_E_MISUSE &&
                  DALSHIM_E_INTERNAL == DAL_E_INTERNAL && DALSHIM_E_NOMEM == DAL_E_NOMEM &&
                  DALSHIM_E_OPTIONS == DAL_E_OPTIONS && DALSHIM_E_LIMIT == DAL_E_LIMIT,
              "dalshim.h repeats dal.h's codes: they must be the same numbers");
static_assert(DALSHIM_STATS_FORCE_GC == DAL_STATS_FORCE_GC, "dalshim_stats passes its flags to dal_stats");

constexpr bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// The first entry with the same number as kCodes[i] but another name, or -1.
constexpr int first_clash() {
  constexpr int n = sizeof kCodes / sizeof kCodes[0];
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (kCodes[i].code == kCodes[j].code && !same_text(kCodes[i].name, kCodes[j].name)) return j;
  return -1;
}
static_assert(first_clash() == -1,
              "a result code number is used with two meanings inside libdalshim.so (see kCodes[first_clash()])");

}  // namespace

extern "C" DALSHIM_API const char* dalshim_code_name(int32_t code) {
  for (const auto& c : kCodes)
    if (c.code == code) return c.name;
  return "unknown code";
}
