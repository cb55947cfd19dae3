// What accelerators this machine has, found by loading the driver libraries (no Halide).
#pragma once
#include <string>

namespace solder {

bool cuda_gpu_present();       // libcuda loads and reports at least one device
bool opencl_device_present();  // libOpenCL loads and reports at least one platform
// "cuda" if a GPU is present, else "opencl" if an OpenCL platform is, else "host".
std::string best_target_name();

}  // namespace solder
