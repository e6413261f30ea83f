// kv_options.hpp -- the kit's one parser of "key=value;key=value" strings:
// dal_open / dalshim_open options (the DAL parses the same grammar in Go,
// native/internal/engine/options.go) and dalmon_start run parameters.
//
// GRAMMAR
//
//   options := item { sep item }
//   sep     := ';' | ','
//   item    := ""  |  key '=' value
//   key     := one or more characters other than sep, '=' and whitespace
//   value   := zero or more characters other than sep; it may contain '='
//              and inner spaces ("mode=into via direct"), but must not
//              begin or end with whitespace
//
//   - Empty items are skipped, so "a=1;;b=2;" and "" are valid (the latter
//     has no pairs).  An item of only whitespace is not empty: it is an
//     error, like any other whitespace next to a key or value, because a
//     stray space usually means a quoting mistake and silently trimming it
//     would accept "plant_leak = shim_malloc" in one parser and not another.
//   - A key may appear at most once: "a=1;a=2" is an error, never "last
//     wins", so a duplicated threshold or option cannot silently change a
//     run.
//   - Whitespace is ' ', '\t', '\n', '\r', '\v', '\f'.
//   - Keys and values are not interpreted here: the caller checks which
//     keys it knows and parses values (numbers with numbers.hpp).
//
// Errors name the offending item, e.g.
//   option 'plant_leak_bytes= 16': whitespace around the value
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dalkit {

struct KvPair {
  std::string key;
  std::string value;
  bool operator==(const KvPair&) const = default;
};

// Parse text.  On success fills out with the pairs in text order and
// returns true; on failure sets error (one sentence, no trailing period)
// and returns false, leaving out unchanged.
bool parse_kv_options(std::string_view text, std::vector<KvPair>& out, std::string& error);

// The canonical text of pairs: "k=v" joined by ';'.  parse_kv_options of
// the result gives pairs back (for pairs that parse_kv_options produced).
std::string format_kv_options(const std::vector<KvPair>& pairs);

}  // namespace dalkit
