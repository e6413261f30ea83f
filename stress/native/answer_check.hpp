// answer_check.hpp -- is a DAL answer the expected value?  (docs/workloads.md,
// "Checking an answer".)
//
// The expected answer is encoded by dalstress (msgpack-c), the answer by the
// DAL (Go's msgp, or C for rows).  Both are valid MessagePack for the same
// value but need not be the same bytes: an integer may take any int format
// (the DAL writes 200 as int16 d1 00 c8, msgpack-c as uint8 cc c8) and an
// array or map header any width (the DAL patches a rows array into an
// array32).  So equal bytes are accepted at once (memcmp: the reference
// answer always takes this path), and otherwise both encodings are walked
// in step and compared as values: same type and value everywhere, map keys
// in the same order, integers equal as integers, floats equal as float64
// bits and never an integer where a float is expected, strings byte-equal.
// No allocation unless there is a difference to describe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dalstress {

// True if got[0..got_n) is the value expected[0..exp_n) encodes.  On false,
// *diff (if not null) says where and how they differ: "at .r[3][2]: got
// \"item-35\", expected \"item-34\"", or why got is not one valid value.
bool same_answer(const uint8_t* got, size_t got_n, const uint8_t* expected, size_t exp_n, std::string* diff);

}  // namespace dalstress
