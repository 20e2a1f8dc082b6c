#include <stdexcept>

extern "C" long throw_and_catch() {
  long caught = 0;
  for (int i = 0; i < 1000; ++i) {
    try {
      throw std::runtime_error("x");
    } catch (const std::exception&) {
      ++caught;
    }
  }
  return caught;
}
