// nvfuser_2146's tensors for any sizes (N0, N1, N2): the app's two sizes and the tests' own.
#pragma once
#include <cstdint>

#include "apps/app_spec.h"

namespace solder {

AppIO nvfuser_2146_io(int64_t N0, int64_t N1, int64_t N2);

}  // namespace solder
