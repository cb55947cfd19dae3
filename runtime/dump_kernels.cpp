// The `kernels` dump: one file per device kernel, cut from the source the compile left beside the
// library (runtime/aot_compiler.h), so nothing is compiled twice.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/aot_compiler.h"
#include "runtime/build_dumps.h"
#include "runtime/device_source_split.h"
#include "runtime/targets.h"

namespace solder {
namespace fs = std::filesystem;

std::string write_kernels_dump(const std::string &library_path, const std::string &target, const std::string &folder) {
    std::string src_path = device_source_path(library_path, make_target(target));
    if (src_path.empty()) return "target " + target + " has no device kernels: the pipeline is host code only\n";
    std::ifstream in(src_path, std::ios::binary);
    if (!in) return "no device source at '" + src_path + "' (the compile should have written it)\n";
    std::stringstream ss;
    ss << in.rdbuf();
    bool ptx = target == "cuda";
    std::vector<KernelSource> ks = split_device_source(ss.str(), ptx ? DeviceLanguage::PTX : DeviceLanguage::OpenCL);

    fs::path dir = fs::path(folder) / "kernels";
    fs::remove_all(dir);  // kernels of an earlier run must not be counted with these
    fs::create_directories(dir);
    std::ostringstream o;
    o << ks.size() << " kernel" << (ks.size() == 1 ? "" : "s") << " (" << (ptx ? "PTX" : "OpenCL C") << ") from "
      << src_path << ", one file each (with the shared preamble, so each stands alone):\n";
    for (auto &k : ks) {
        fs::path file = dir / (k.name + (ptx ? ".ptx" : ".cl"));
        std::ofstream(file) << k.text;
        size_t lines = 0;
        for (char c : k.text) lines += c == '\n';
        o << "  " << file.string() << "  (" << lines << " lines)\n";
    }
    return o.str();
}

}  // namespace solder
