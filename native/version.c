/* What dal_version_string() returns if making the real string ever failed
** (exports_info.go): dal.h promises a static string, never NULL. In C,
** because a cgo preamble with //export may only declare. */
const char *dal_version_unknown(void);

const char *dal_version_unknown(void) { return "dal (version string unavailable; see dal_last_error)"; }
