// Compares an answer with the expected one as decoded MessagePack values
// (msgpack-c), for the rare answer whose bytes differ from the expected
// encoding: an equal value in another format (say uint16 for int16) is still
// a right answer; anything else is a wrong one, described for the report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace floorbench {

// True if got[0..n) decodes to the same value as want[0..m). Otherwise false,
// with *why saying what each side holds.
bool same_answer(const uint8_t* got, size_t n, const uint8_t* want, size_t m, std::string* why);

}  // namespace floorbench
