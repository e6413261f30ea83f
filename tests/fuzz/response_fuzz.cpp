// libFuzzer target: the shim's response decoder, dalshim::decode_response,
// fed arbitrary bytes as if libdal.so had answered them.  A response comes
// from another library and must never crash the host: anything that is not a
// valid response has to come back as an error.  Built with clang in the
// sanitizer build only (tests/fuzz/CMakeLists.txt), so ASan and UBSan watch
// every input.
#include <dalshim/response.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto result = dalshim::decode_response(std::span<const uint8_t>(data, size));
  // An input of no bytes is never a response.
  if (size == 0 && result.ok()) std::abort();
  return 0;
}
