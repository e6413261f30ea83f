#include "answer_check.hpp"

#include <msgpack.hpp>

#include <sstream>

namespace floorbench {

bool same_answer(const uint8_t* got, size_t n, const uint8_t* want, size_t m, std::string* why) {
  msgpack::object_handle g, w;
  try {
    g = msgpack::unpack(reinterpret_cast<const char*>(got), n);
  } catch (const std::exception& e) {
    *why = "the answer (" + std::to_string(n) + " bytes) is not one MessagePack value: " + e.what();
    return false;
  }
  try {
    w = msgpack::unpack(reinterpret_cast<const char*>(want), m);
  } catch (const std::exception& e) {
    *why = std::string("the expected answer is not one MessagePack value: ") + e.what();
    return false;
  }
  // msgpack-c decodes every non-negative integer as POSITIVE_INTEGER and
  // compares arrays and maps element by element, in order: the protocol's
  // equality (docs/workloads.md, "Checking an answer").
  if (g.get() == w.get()) return true;
  std::ostringstream text;
  text << "got " << g.get() << ", want " << w.get();
  *why = text.str();
  return false;
}

}  // namespace floorbench
