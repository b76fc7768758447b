#include "demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace streamscope {

std::string demangleName(const char* mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && out != nullptr ? out : mangled;
  std::free(out);
  return name;
}

}  // namespace streamscope
